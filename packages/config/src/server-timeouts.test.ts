import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KEEP_ALIVE_TIMEOUT_MS, withServerTimeouts } from './server-timeouts';

/** The Keep-Alive header a server sends on a kept-alive answer. */
async function keepAliveHeader(server: ReturnType<typeof createServer>): Promise<string | undefined> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.headers['keep-alive']?.toString()));
      });
      req.once('error', reject);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

it("tells clients the server keeps idle connections open longer than Node's 5 s", async () => {
  const answer = (_req: unknown, res: { end(body: string): void }) => res.end('ok');
  expect(await keepAliveHeader(createServer(answer))).toBe('timeout=5');
  expect(await keepAliveHeader(withServerTimeouts(createServer(answer)))).toBe(
    `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`,
  );
});

it('keeps the headers timeout above the keep-alive timeout, as Node requires', () => {
  const server = withServerTimeouts(createServer());
  expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
});
