import { createClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createCoreApp, migrateCore } from '@svc/observability-core';

const ch = await createClickHouse({ path: '/tmp/exp2-ch', database: 'bench' });
await migrateCore(ch);
const now = Date.now();
const app = createCoreApp({
  ch,
  ingestKeys: { resolve: async () => null },
  internalSecret: 'x'.repeat(20),
  logger: silentLogger,
  metrics: createNoopMetrics(),
  now: () => now,
});
const server = await new Promise<any>((r) => {
  const s = app.listen(0, '127.0.0.1', () => r(s));
});
const url = `http://127.0.0.1:${server.address().port}`;
for (const [tool, input] of [
  ['trace.aggregate', {}],
  ['trace.aggregate', {}],
] as const) {
  const times: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/internal/v1/projects/big/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': 'x'.repeat(20) },
      body: JSON.stringify(input),
    });
    await res.text();
    times.push(performance.now() - t);
  }
  console.log(
    tool,
    times
      .sort((a, b) => a - b)
      .map((t) => t.toFixed(0))
      .join(' '),
  );
}
server.close();
await ch.close();
