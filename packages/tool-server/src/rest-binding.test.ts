import { silentLogger } from '@svc/logger';
import express from 'express';
import request from 'supertest';
import { httpErrorHandler, notFoundHandler } from './http-errors';
import { createRestRouter, type RestBindingOptions } from './rest-binding';
import { makeExecutor, principal } from './testing/fixtures';

function app(transportOf?: RestBindingOptions['transportOf']) {
  const { executor, audit } = makeExecutor();
  const a = express();
  a.use(express.json({ limit: '1kb' }));
  a.use((_req, res, next) => {
    res.locals.principal = principal();
    next();
  });
  a.use(
    createRestRouter({
      executor,
      principalOf: (res) => res.locals.principal,
      requestIdOf: () => 'req-rest',
      ...(transportOf ? { transportOf } : {}),
    }),
  );
  a.use(notFoundHandler());
  a.use(httpErrorHandler(silentLogger));
  return { app: a, audit };
}

describe('REST binding', () => {
  it('calls a tool with its parameter object', async () => {
    const { app: a } = app();
    const res = await request(a).post('/v1/tools/demo.echo').send({ word: 'yo' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [{ word: 'yo', project: 'prj_a' }], limit: 5, has_more: false });
  });

  it.each([
    ['unknown tool', '/v1/tools/demo.nope', { word: 'x' }, 404, 'not_found'],
    ['hidden tool', '/v1/tools/demo.traced', {}, 404, 'not_found'],
    ['project_id', '/v1/tools/demo.echo', { word: 'x', project_id: 'b' }, 400, 'invalid_input'],
    ['missing field', '/v1/tools/demo.echo', {}, 400, 'invalid_input'],
    ['array body', '/v1/tools/demo.echo', [1], 400, 'invalid_input'],
  ])('%s -> %i %s', async (_label, path, body, status, code) => {
    const { app: a } = app();
    const res = await request(a)
      .post(path)
      .send(body as object);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
  });

  it('maps malformed JSON to 400 and oversized bodies to 413', async () => {
    const { app: a } = app();
    const bad = await request(a)
      .post('/v1/tools/demo.echo')
      .set('Content-Type', 'application/json')
      .send('{"word":');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_input');
    const big = await request(a)
      .post('/v1/tools/demo.echo')
      .send({ word: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
  });

  it("audits calls as rest, or as the transport the gateway's transportOf names (the console's calls)", async () => {
    const plain = app();
    await request(plain.app).post('/v1/tools/demo.echo').send({ word: 'yo' }).expect(200);
    expect(plain.audit.entries.map((e) => e.transport)).toEqual(['rest']);
    // What the gateway knows from authentication (here: a header this test app believes).
    const named = app((req) => (req.get('x-test-console') === '1' ? 'console' : 'rest'));
    await request(named.app).post('/v1/tools/demo.echo').set('x-test-console', '1').send({ word: 'yo' });
    await request(named.app).post('/v1/tools/demo.echo').send({ word: 'yo' });
    expect(named.audit.entries.map((e) => e.transport)).toEqual(['console', 'rest']);
  });

  it('requires a JSON content type', async () => {
    const { app: a } = app();
    const res = await request(a).post('/v1/tools/demo.echo').set('Content-Type', 'text/plain').send('word=x');
    expect(res.status).toBe(400);
  });

  it('answers 503 with Retry-After and no data when the audit store is down', async () => {
    const { app: a, audit } = app();
    audit.failing = true;
    const res = await request(a).post('/v1/tools/demo.echo').send({ word: 'payload' });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain('payload');
  });

  it('hides internal error text', async () => {
    const { app: a } = app();
    const res = await request(a).post('/v1/tools/demo.echo').send({ word: 'boom' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal', message: 'Internal error.' });
  });
});
