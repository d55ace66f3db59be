import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { allTools } from '@svc/tool-catalog';
import { wireStdio } from './wiring';

// A client asks for tools once at start, and many never act on list_changed: the first
// tools/list must hold every group that will be there. Here recall's health answer is held back;
// the server must not serve before it came (within its bound), so its first list has recall's tools.

const servers: Server[] = [];
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const answer = (res: ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

it('serves only after the first probe round, so the first tools/list has every group', async () => {
  const identityUrl = await listen((_req, res) =>
    answer(res, { org_id: 'org_1', capabilities: ['vis_recall'] }),
  );
  let probed = false;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const recallUrl = await listen((req, res) => {
    if (req.url !== '/healthz') return res.writeHead(404).end();
    probed = true;
    void released.then(() => answer(res, { status: 'ok' }));
  });

  let wired = false;
  const wiring = wireStdio(
    {
      projectId: 'prj_local',
      orgId: 'org_1',
      coreUrl: 'http://127.0.0.1:9',
      identityUrl,
      recallUrl,
      copilotUrl: undefined,
      internalSecret: 'stdio-first-list-secret-0123456789',
      logLevel: 'silent',
    },
    { localUser: 'local:tester', healthIntervalMs: 3_600_000 },
  ).then((w) => {
    wired = true;
    return w;
  });
  // The probe reached recall and is held: the server is not ready to serve yet.
  while (!probed) await new Promise((r) => setTimeout(r, 10));
  expect(wired).toBe(false);
  release();
  const stdio = await wiring;

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  stdio.app.serve(serverSide);
  const client = new Client({ name: 'first-list', version: '0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(clientSide);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const recall = allTools.filter((t) => t.backend === 'recall').map((t) => t.name);
    expect(recall.length).toBeGreaterThan(0);
    expect(names).toEqual(expect.arrayContaining(recall));
  } finally {
    await client.close();
    await stdio.close();
  }
});
