import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type Harness, SECRET, startHarness } from './testing/harness';

// Bodies identity cannot take are the sender's problem, never a 500: a gzip body that inflates past
// the 2 MB limit, a corrupt gzip body, a charset JSON is not sent in. On a public route (console
// login) and on an internal one alike.

let h: Harness;
let server: Server;
let url: string;
beforeAll(async () => {
  h = await startHarness();
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

const ROUTES = [
  ['/console/v1/login', {}],
  ['/internal/v1/introspect', { 'X-Internal-Secret': SECRET }],
] as const;

/** Over real HTTP: the bytes go as they are (supertest would serialize a Buffer as JSON). */
async function send(path: string, headers: Record<string, string>, body: Buffer | string) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

describe.each(ROUTES)('POST %s', (path, auth) => {
  it('answers 413 payload_too_large to a gzip body inflating past 2 MB', async () => {
    const inflated = gzipSync(Buffer.from(`{"token":"${'a'.repeat(2 * 1024 * 1024 + 1)}"}`));
    expect(inflated.length).toBeLessThan(16 * 1024);
    const res = await send(
      path,
      { ...auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      inflated,
    );
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('answers 400 to a corrupt gzip body', async () => {
    const res = await send(
      path,
      { ...auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      Buffer.from('not gzip at all'),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
  });

  it.each(['latin1', 'utf-99', 'no-such-charset'])('answers 400 to charset=%s', async (charset) => {
    const res = await send(path, { ...auth, 'Content-Type': `application/json; charset=${charset}` }, '{}');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
  });

  it('answers 400 to an unsupported Content-Encoding', async () => {
    const res = await send(
      path,
      { ...auth, 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-x' },
      '{}',
    );
    expect(res.status).toBe(400);
  });
});
