import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IdentityApi } from './identity-api';
import { createToolCaller } from './tool-calls';

// The gateway's catalog is read once per 10 s for all pages, and a failed read is not remembered.

let server: Server;
let url: string;
let reads = 0;
let failNext = false;
beforeAll(async () => {
  server = createServer((_req, res) => {
    reads++;
    if (failNext) {
      failNext = false;
      res.writeHead(503).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ paths: { [`/v1/tools/t${reads}.x`]: {} } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('reads the catalog once per 10 s, shares a read in flight, and forgets a failed one', async () => {
  const clock = { now: 0 };
  const caller = createToolCaller({ gatewayUrl: url, identity: {} as IdentityApi, now: () => clock.now });
  const [a, b] = await Promise.all([caller.catalog(), caller.catalog()]);
  expect(a).toBe(b);
  expect(reads).toBe(1);
  clock.now = 9_999;
  expect(await caller.catalog()).toBe(a);
  clock.now = 10_000;
  failNext = true;
  await expect(caller.catalog()).rejects.toThrow('gateway');
  const again = await caller.catalog();
  expect(Object.keys(again.paths)).toEqual(['/v1/tools/t3.x']);
  expect(reads).toBe(3);
});
