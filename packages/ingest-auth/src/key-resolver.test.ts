import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpIngestKeyResolver } from './key-resolver';

// A small stand-in for identity's documented endpoint, GET /internal/v1/ingest-keys/{key_id}
// (docs/internal-api.md), on a real loopback socket.
const SECRET = 'internal-secret-0123456789';

describe('createHttpIngestKeyResolver', () => {
  let server: Server;
  let baseUrl: string;
  let calls: string[];
  let keys: Record<
    string,
    { project_id: string; secret: string; active: boolean; allowed_origins?: unknown }
  >;
  let failing = false;

  beforeAll(async () => {
    const app = express();
    app.get('/internal/v1/ingest-keys/:key_id', (req, res) => {
      calls.push(req.params.key_id);
      if (req.get('x-internal-secret') !== SECRET)
        return void res.status(401).json({ error: 'unauthorized' });
      if (failing) return void res.status(500).json({ error: 'internal', message: 'db exploded' });
      const key = keys[req.params.key_id];
      if (!key) return void res.status(404).json({ error: 'not_found', message: 'no such key' });
      res.json({ key_id: req.params.key_id, ...key });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    calls = [];
    failing = false;
    keys = { ik_live: { project_id: 'proj_1', secret: 's3cret', active: true } };
  });

  it('resolves a key and caches the answer for cacheMs', async () => {
    let now = 1_000_000;
    const resolver = createHttpIngestKeyResolver({
      identityUrl: `${baseUrl}/`,
      internalSecret: SECRET,
      cacheMs: 30_000,
      now: () => now,
    });
    expect(await resolver.resolve('ik_live')).toEqual({
      projectId: 'proj_1',
      secret: 's3cret',
      active: true,
      allowedOrigins: [],
    });
    keys.ik_live!.active = false;
    now += 29_000;
    expect((await resolver.resolve('ik_live'))?.active).toBe(true);
    expect(calls).toEqual(['ik_live']);
    now += 2_000;
    expect((await resolver.resolve('ik_live'))?.active).toBe(false);
    expect(calls).toEqual(['ik_live', 'ik_live']);
  });

  it('maps allowed_origins, and an answer without them to no origins', async () => {
    keys.ik_web = {
      project_id: 'proj_1',
      secret: 'web-secret',
      active: true,
      allowed_origins: ['https://app.example.com', 'http://localhost:5173'],
    };
    const resolver = createHttpIngestKeyResolver({ identityUrl: baseUrl, internalSecret: SECRET });
    expect(await resolver.resolve('ik_web')).toEqual({
      projectId: 'proj_1',
      secret: 'web-secret',
      active: true,
      allowedOrigins: ['https://app.example.com', 'http://localhost:5173'],
    });
    expect((await resolver.resolve('ik_live'))?.allowedOrigins).toEqual([]);
  });

  it('fails closed when allowed_origins is not a list of strings', async () => {
    keys.ik_odd = { project_id: 'proj_1', secret: 's', active: true, allowed_origins: '*' };
    const resolver = createHttpIngestKeyResolver({ identityUrl: baseUrl, internalSecret: SECRET });
    await expect(resolver.resolve('ik_odd')).rejects.toMatchObject({ code: 'backend_unavailable' });
  });

  it('answers null for an unknown key, and for ids that cannot be keys without asking', async () => {
    const resolver = createHttpIngestKeyResolver({ identityUrl: baseUrl, internalSecret: SECRET });
    expect(await resolver.resolve('ik_missing')).toBeNull();
    expect(await resolver.resolve('../admin')).toBeNull();
    expect(calls).toEqual(['ik_missing']);
  });

  it('fails closed with backend_unavailable when identity errors, refuses us, or is down', async () => {
    failing = true;
    const resolver = createHttpIngestKeyResolver({ identityUrl: baseUrl, internalSecret: SECRET });
    await expect(resolver.resolve('ik_live')).rejects.toMatchObject({ code: 'backend_unavailable' });
    failing = false;
    const wrongSecret = createHttpIngestKeyResolver({ identityUrl: baseUrl, internalSecret: 'nope' });
    await expect(wrongSecret.resolve('ik_live')).rejects.toMatchObject({ code: 'backend_unavailable' });
    const down = createHttpIngestKeyResolver({ identityUrl: 'http://127.0.0.1:1', internalSecret: SECRET });
    await expect(down.resolve('ik_live')).rejects.toMatchObject({ code: 'backend_unavailable' });
  });
});
