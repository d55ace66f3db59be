import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasIngestSignature } from '@svc/sdk-core/testing';
import { AppState } from 'react-native';
import { init } from '../index';

// The SDK as an app starts it (`init`), on the React Native platform under the react-native
// preset: AsyncStorage's mock, noble's HMAC, ErrorUtils, AppState; a loopback server stands for the
// core and checks each request's signature the way the core does.

const KEY = { id: 'key_rn', secret: 'rn-ingest-secret-0123456789' };
let server: Server;
let endpoint: string;
const batches: Record<string, Record<string, unknown>[]>[] = [];
const badSignatures: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.headers['x-svc-key'] !== KEY.id || !hasIngestSignature(req.headers, KEY.secret, body)) {
        badSignatures.push(String(req.url));
        return void res.writeHead(401).end('{}');
      }
      batches.push(JSON.parse(body.toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const records = (type: string) => batches.flatMap((b) => b[type] ?? []);

it('starts a session, reports a fatal JS error as a crash with the session crashed, all signed', async () => {
  (AppState as unknown as { currentState: string }).currentState = 'active';
  const previous = jest.fn();
  const errorUtils = (
    globalThis as unknown as {
      ErrorUtils: {
        setGlobalHandler(h: unknown): void;
        getGlobalHandler(): (e: unknown, f?: boolean) => void;
      };
    }
  ).ErrorUtils;
  errorUtils.setGlobalHandler(previous);
  const sdk = init({
    dsn: `http://${KEY.id}:${KEY.secret}@${endpoint}/prj_rn`,
    appVersion: '1.0.0',
    sampleIntervalMs: 0,
  });
  await sdk.ready;
  // A fast refresh runs index.js again: the running SDK, not a second one instrumenting fetch again.
  expect(init({ dsn: `http://${KEY.id}:${KEY.secret}@${endpoint}/prj_rn`, appVersion: '1.0.0' })).toBe(sdk);
  sdk.navigation('Checkout');
  const crash = new TypeError('undefined is not an object');
  errorUtils.getGlobalHandler()(crash, true);
  // The previous handler runs once the report is stored: waited for with a ceiling in time (2 min,
  // far above a loaded machine's need), not a count of polls a busy machine runs through early.
  const started = Date.now();
  while (previous.mock.calls.length === 0 && Date.now() - started < 120_000)
    await new Promise((r) => setTimeout(r, 10));
  expect(previous).toHaveBeenCalledWith(crash, true);
  await sdk.flush();

  expect(badSignatures).toEqual([]);
  const [reported] = records('crashes');
  expect(reported).toMatchObject({
    error_type: 'TypeError',
    message: 'undefined is not an object',
    platform: 'ios',
    app_version: '1.0.0',
    session_id: sdk.sessionId(),
    breadcrumbs: [{ category: 'navigation', message: 'Checkout' }],
  });
  const reports = records('sessions').filter((s) => s.session_id === sdk.sessionId());
  expect(reports.map((s) => s.status)).toEqual(['ok', 'crashed']);
  // app_start_ms: React Native's performance API has no start time under jest: no sample.
  expect(records('metrics')).toEqual([]);
  await sdk.shutdown();
  expect(errorUtils.getGlobalHandler()).toBe(previous);
});
