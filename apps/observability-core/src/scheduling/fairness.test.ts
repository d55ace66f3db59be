import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CoreHarness, createCoreHarness, INTERNAL_SECRET, type TestKey } from '../testing/core-harness';
import { generatedEvents, testNow } from '../testing/retention-test-data';

// One project floods the core with heavy calls while another makes point lookups, on a real
// chDB over real HTTP: the quiet project's calls all succeed, and each is answered while the
// flood is still mostly waiting (not queued behind it). The latency figure is the bench's
// (`pnpm bench --suite fairness`); this asserts order and outcome, not time.

const NOW = testNow();
const A: TestKey = { keyId: 'fair_a', projectId: 'fair_a', secret: 'secret-fair-a-0123456789', active: true };
const B: TestKey = { keyId: 'fair_b', projectId: 'fair_b', secret: 'secret-fair-b-0123456789', active: true };
const FLOOD = 60;
const LOOKUPS = 10;

describe('fair sharing of the core between projects', () => {
  let h: CoreHarness;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    h = await createCoreHarness('core_fairness', NOW, [A, B]);
    await h.ingestAll(A, 'events', generatedEvents(NOW, 1500, 80, 7));
    await h
      .ingest(B, {
        logs: [{ timestamp: NOW - 60_000, level: 'ERROR', message: 'payment timeout', source: 'backend' }],
      })
      .expect(200);
    server = h.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await h.close();
  });

  const call = (project: string, tool: string, input: unknown) =>
    fetch(`${base}/internal/v1/projects/${project}/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify(input),
    });

  /** A call whose answer (1.6 MB) is thrown away unread: the client's work stays out of the core's. */
  const heavyCall = (project: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        `${base}/internal/v1/projects/${project}/tools/analytics.cohorts`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ days: 365, max_day: 90 }));
    });

  it("answers a quiet project's lookups while another project's flood waits, and refuses only the flood", async () => {
    // One lookup first, unmeasured: the first fetch and the first query of a table pay one-time costs.
    expect((await call('fair_b', 'log.search', { search: 'payment' })).status).toBe(200);
    let floodDone = 0;
    const flood = Array.from({ length: FLOOD }, () =>
      heavyCall('fair_a').then((status) => {
        floodDone += 1;
        return status;
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    const doneWhenAnswered: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const res = await call('fair_b', 'log.search', { search: 'payment' });
      const body = (await res.json()) as { items?: unknown[] };
      expect([res.status, body.items?.length]).toEqual([200, 1]);
      doneWhenAnswered.push(floodDone);
    }
    const statuses = await Promise.all(flood);
    for (const status of statuses) expect([200, 429]).toContain(status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    // The first lookup came back while most of the flood was still to do, and the last before it
    // was all done: the quiet project was never queued behind the flood.
    expect(doneWhenAnswered[0]).toBeLessThan(FLOOD / 3);
    expect(Math.max(...doneWhenAnswered)).toBeLessThan(FLOOD);
  });
});
