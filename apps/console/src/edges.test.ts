import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { type ConsoleTestBed, csrfIn, startConsoleTestBed } from './testing/console-harness';

// Edges an attack run found: the console opened at the loopback address it listens on refused
// sign-in as a cross-site post, and a gzip body inflating past the form limit answered 500.

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

describe('the loopback address it listens on', () => {
  const PORT = 8094;
  const publicUrl = `http://localhost:${PORT}`;

  async function postLogin(origin: string | undefined, referer?: string) {
    const u = await bed.user(`loopback-${Math.random().toString(36).slice(2, 8)}`);
    const { app } = bed.consoleApp({ publicUrl, loopbackPort: PORT });
    const agent = request.agent(app);
    const form = await agent.get('/login').set('Host', `127.0.0.1:${PORT}`).expect(200);
    const post = agent.post('/login').set('Host', `127.0.0.1:${PORT}`).type('form');
    if (origin) post.set('Origin', origin);
    if (referer) post.set('Referer', referer);
    return post.send({ _csrf: csrfIn(form.text), email: u.email, password: u.password });
  }

  it.each([`http://127.0.0.1:${PORT}`, `http://[::1]:${PORT}`, publicUrl])(
    'signs in from %s',
    async (origin) => {
      const res = await postLogin(origin);
      expect(res.status).toBe(303);
      expect(res.headers['set-cookie']?.toString()).toContain('svc_ses_');
    },
  );

  it.each([
    [`http://127.0.0.1:${PORT + 1}`, undefined],
    ['http://localhost.evil.example', undefined],
    ['https://evil.example', undefined],
    ['null', undefined],
    [undefined, 'https://evil.example/page'],
    [undefined, `http://127.0.0.1:${PORT + 1}/login`],
  ])('still refuses Origin %s / Referer %s', async (origin, referer) => {
    const res = await postLogin(origin, referer);
    expect(res.status).toBe(403);
    expect(res.text).toContain('This form has expired');
  });

  it('takes no loopback origin when it does not listen on loopback', async () => {
    const u = await bed.user('no-loopback');
    const { app } = bed.consoleApp({ publicUrl });
    const agent = request.agent(app);
    const form = await agent.get('/login').expect(200);
    const res = await agent
      .post('/login')
      .set('Origin', `http://127.0.0.1:${PORT}`)
      .type('form')
      .send({ _csrf: csrfIn(form.text), email: u.email, password: u.password });
    expect(res.status).toBe(403);
  });
});

describe('request bodies', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const { app } = bed.consoleApp();
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** Over real HTTP, so the bytes go as they are. */
  const post = (headers: Record<string, string>, body: Buffer | string) =>
    fetch(`${url}/login`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  it('answers 413 to a gzip form inflating past 256 KB', async () => {
    const inflated = gzipSync(Buffer.from(`email=a%40b.c&password=${'x'.repeat(256 * 1024 + 1)}`));
    expect(inflated.length).toBeLessThan(4 * 1024);
    const res = await post(
      { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
      inflated,
    );
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('too large');
  });

  it('answers 413 to a form of more than 200 fields', async () => {
    const fields = Array.from({ length: 201 }, (_, i) => `f${i}=1`).join('&');
    const res = await post({ 'content-type': 'application/x-www-form-urlencoded' }, fields);
    expect(res.status).toBe(413);
  });

  it.each([
    ['a corrupt gzip body', { 'content-encoding': 'gzip' }, 'not gzip'],
    ['an unknown Content-Encoding', { 'content-encoding': 'zstd-x' }, 'a=1'],
    ['charset=utf-99', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-99' }, 'a=1'],
    ['charset=no-such', { 'content-type': 'application/x-www-form-urlencoded; charset=no-such' }, 'a=1'],
  ])('answers 400 to %s', async (_label, headers, body) => {
    const res = await post({ 'content-type': 'application/x-www-form-urlencoded', ...headers }, body);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('could not be read');
  });
});
