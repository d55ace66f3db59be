import { randomBytes } from 'node:crypto';
import { type ClickHouse, createClickHouse } from '@svc/clickhouse';
import { type CoreHarness, createCoreHarness } from '../testing/core-harness';
import { migrateCore } from './migrate';
import { TTL_COLUMNS } from './migrations';

// The core on a ClickHouse server (SVC_CLICKHOUSE_URL, as docker-compose.yml runs it) instead of
// embedded chDB: the same migrations, inserts and queries over HTTP. Runs only when
// SVC_TEST_CLICKHOUSE_URL names a server (http://user:password@host:8123; README, "Self-hosting"),
// each run in a database of its own, dropped afterwards.

const SERVER = process.env.SVC_TEST_CLICKHOUSE_URL?.trim();
const describeOnServer = SERVER ? describe : describe.skip;

function serverClient(): Promise<ClickHouse> {
  const url = new URL(SERVER!);
  return createClickHouse({
    url: `${url.protocol}//${url.host}`,
    username: decodeURIComponent(url.username || 'default'),
    password: decodeURIComponent(url.password),
    database: `t_core_server_${randomBytes(4).toString('hex')}`,
  });
}

const NOW = Date.now();
const KEY = { keyId: 'key_server', secret: 'server-test-secret', projectId: 'prj_server', active: true };

describeOnServer('the core on a ClickHouse server', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('server', NOW, [KEY], await serverClient());
  });
  afterAll(async () => {
    await h?.close();
  });

  it('applies every migration (again at the next start: nothing to do) with project-first keys and TTLs', async () => {
    expect(h.ch.embedded).toBe(false);
    await migrateCore(h.ch);
    const tables = await h.ch.query<{ name: string; sorting_key: string; engine_full: string }>(
      'SELECT name, sorting_key, engine_full FROM system.tables WHERE database = currentDatabase()',
    );
    for (const table of Object.keys(TTL_COLUMNS)) {
      const found = tables.find((t) => t.name === table);
      expect(found?.sorting_key.startsWith('project_id')).toBe(true);
      expect(found?.engine_full).toContain(`toIntervalDay(${table === 'spans' ? 14 : 90})`);
    }
    const [{ n }] = (await h.ch.query<{ n: string }>('SELECT count() AS n FROM schema_migrations')) as [
      { n: string },
    ];
    expect(Number(n)).toBeGreaterThanOrEqual(20);
  });

  it('stores a signed batch once, refuses its replay, and answers a tool from it', async () => {
    const logs = [0, 1].map((i) => ({
      timestamp: new Date(NOW - i * 60_000).toISOString(),
      level: 'ERROR',
      message: `server path ${i}`,
      source: 'backend',
      user_id: 'u_server',
    }));
    const body = { logs };
    const ts = Math.floor(NOW / 1000);
    await h.ingest(KEY, body, ts).expect(200);
    // The same bytes again: the replay guard's table on the server remembers the first.
    await h.ingest(KEY, body, ts).expect(409);
    const answer = await h.callTool(KEY.projectId, 'log.search', { search: 'server path' }).expect(200);
    expect(answer.body.items.map((l: { message: string }) => l.message)).toEqual(logs.map((l) => l.message));
  });
});
