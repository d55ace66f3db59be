import { apmSearchOutput } from '@svc/tools-apm';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// Expected pages are computed here, with plain loops, from the samples that were ingested.

const MIN = 60_000;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const keyA: TestKey = {
  keyId: 'apms_key_a',
  projectId: 'apms_a',
  secret: 'secret-a-0123456789',
  active: true,
};
const keyB: TestKey = {
  keyId: 'apms_key_b',
  projectId: 'apms_b',
  secret: 'secret-b-0123456789',
  active: true,
};

interface Sample {
  timestamp: string;
  name: string;
  value: number;
  unit?: string;
  platform?: string;
  app_version?: string;
  session_id?: string;
  user_id?: string;
  attributes?: Record<string, string>;
}

const ROUTES = ['/checkout', '/home', '/search?q=50%', '/a_b', '/ключ'];

function samplesOf(marker = ''): Sample[] {
  const out: Sample[] = [];
  for (let i = 0; i < 120; i++) {
    const name = ['app_start_ms', 'fps', 'memory_mb', 'http_ms'][i % 4]!;
    out.push({
      // Every third pair shares a timestamp: ties ordered by name, session, value.
      timestamp: new Date(NOW - Math.floor(i / 3) * MIN).toISOString(),
      name,
      value: (i * 37) % 500,
      ...(i % 5 === 0 ? {} : { unit: name === 'fps' ? 'fps' : 'ms' }),
      ...(i % 2 === 0 ? { platform: 'ios', app_version: `1.${i % 3}.0` } : {}),
      ...(i % 7 === 0 ? {} : { session_id: `s${i % 9}`, user_id: `u${i % 4}` }),
      attributes: i % 6 === 0 ? {} : { route: ROUTES[i % ROUTES.length]!, screen: `Screen${i % 3}${marker}` },
    });
  }
  return out;
}

const A = samplesOf();
const B = samplesOf('B-ONLY');

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const order = (a: Sample, b: Sample) =>
  Date.parse(b.timestamp) - Date.parse(a.timestamp) ||
  cmp(a.name, b.name) ||
  cmp(a.session_id ?? '', b.session_id ?? '') ||
  a.value - b.value;

const asItem = (s: Sample) => ({
  timestamp: s.timestamp,
  name: s.name,
  value: s.value,
  unit: s.unit ?? null,
  platform: s.platform ?? null,
  app_version: s.app_version ?? null,
  session_id: s.session_id ?? null,
  user_id: s.user_id ?? null,
  attributes: s.attributes ?? {},
});

/**
 * The documented semantics: the needle in the name or in an attribute's `key=value`, any case; the
 * session and user ids count as the attributes `session_id` and `user_id` when the sample has them.
 */
function matches(s: Sample, needle: string): boolean {
  const n = needle.toLowerCase();
  const ids = { session_id: s.session_id, user_id: s.user_id };
  const attributes = [...Object.entries(s.attributes ?? {}), ...Object.entries(ids)]
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${v}`.toLowerCase());
  return s.name.toLowerCase().includes(n) || attributes.some((line) => line.includes(n));
}

function expected(keep: (s: Sample) => boolean, limit = 20) {
  const all = A.filter(keep).sort(order);
  return {
    items: all.slice(0, limit).map(asItem),
    limit,
    has_more: all.length > limit,
    ...(all.length > limit ? { next_cursor: expect.any(String) } : {}),
  };
}

describe('apm.search on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_apm_search', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'metrics', A);
    await h.ingestAll(keyB, 'metrics', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function search(input: unknown) {
    const res = await h.callTool('apms_a', 'apm.search', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return apmSearchOutput.parse(res.body);
  }

  it('lists the newest samples first, ties in a stable order, default limit 20', async () => {
    expect(await search({})).toEqual(expected(() => true));
    expect(await search({ limit: 1000 })).toEqual(expected(() => true, 1000));
  });

  it('filters by exact metric name', async () => {
    expect(await search({ name: 'fps', limit: 7 })).toEqual(expected((s) => s.name === 'fps', 7));
    expect(await search({ name: 'FPS' })).toEqual(expected(() => false));
  });

  it.each(['FPS', 'route=/check', 'SCREEN1', '50%', '_', 'a_b', 'ключ', 'КЛЮЧ', '=', 'no-such-text'])(
    'search %p matches the name or an attribute as key=value, literally and case-insensitively',
    async (needle) => {
      expect(await search({ search: needle, limit: 1000 })).toEqual(
        expected((s) => matches(s, needle), 1000),
      );
    },
  );

  it.each(['session_id=s1', 'SESSION_ID=S3', 'user_id=u2', 'd=s', 'session_id=', 'user_id='])(
    'search %p matches the session and user ids as if they were key=value attributes',
    async (needle) => {
      const body = await search({ search: needle, limit: 1000 });
      expect(body).toEqual(expected((s) => matches(s, needle), 1000));
      expect(body.items.length).toBeGreaterThan(0);
    },
  );

  it("selects one session's samples of one metric, the way the memory-growth view asks", async () => {
    const body = await search({ name: 'memory_mb', search: 'session_id=s4', limit: 1000 });
    expect(body).toEqual(expected((s) => s.name === 'memory_mb' && s.session_id === 's4', 1000));
    expect(body.items.length).toBeGreaterThan(0);
  });

  it('combines name and search', async () => {
    const body = await search({ name: 'http_ms', search: 'home', limit: 1000 });
    expect(body).toEqual(expected((s) => s.name === 'http_ms' && matches(s, 'home'), 1000));
    expect(body.items.length).toBeGreaterThan(0);
  });

  it('refuses a limit outside 1..1000, an empty search and unknown parameters with 400', async () => {
    for (const input of [{ limit: 0 }, { limit: 1001 }, { search: '' }, { days: 3 }]) {
      expect((await h.callTool('apms_a', 'apm.search', input)).status).toBe(400);
    }
  });
});
