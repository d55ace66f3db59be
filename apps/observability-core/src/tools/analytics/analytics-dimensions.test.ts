import { analyticsDimensionsOutput, DIMENSIONS, type Dimension } from '@svc/tools-analytics';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// analytics.dimensions on chDB. Expected answers are counted here from the ingested records.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000;
const key: TestKey = { keyId: 'dim_key', projectId: 'dim_p', secret: 'secret-dim-0123456789', active: true };
const other: TestKey = {
  keyId: 'dim_key_o',
  projectId: 'dim_o',
  secret: 'secret-do-0123456789',
  active: true,
};

interface Ev {
  timestamp: number;
  platform?: string;
  app_version?: string;
  properties?: Record<string, unknown>;
}

const HOSTILE = 'camp\u202Eevil\u202C\u200B';
const events: Ev[] = [];
// Counts that differ per value, ties broken by value, values beyond the top 100 (utm_campaign).
for (let i = 0; i < 240; i++) {
  events.push({
    timestamp: NOW - (i % 40) * 17 * HOUR,
    platform: ['ios', 'android', 'web', 'ios'][i % 4],
    ...(i % 7 === 0 ? {} : { app_version: `1.${i % 5}.0` }),
    properties: {
      ...(i % 3 === 0 ? {} : { utm_source: i % 2 ? 'newsletter' : 'ads' }),
      ...(i % 6 === 0 ? { utm_medium: 'email' } : i % 6 === 1 ? { utm_medium: '' } : {}),
      utm_campaign: i % 10 === 0 ? HOSTILE : `c${String(i % 130).padStart(3, '0')}`,
    },
  });
}
// Exactly at the window start (inside), just before it and in the future (outside).
events.push({ timestamp: NOW - 30 * DAY, platform: 'edge_in' });
events.push({ timestamp: NOW - 30 * DAY - 1, platform: 'edge_out' });
events.push({ timestamp: NOW + HOUR, platform: 'future' });

function dimensionValue(e: Ev, d: Dimension): string {
  if (d === 'platform') return e.platform ?? '';
  if (d === 'app_version') return e.app_version ?? '';
  const v = e.properties?.[d];
  return typeof v === 'string' ? v : '';
}

function expected(days: number, clean: (v: string) => string) {
  const inWindow = events.filter((e) => e.timestamp >= NOW - days * DAY && e.timestamp <= NOW);
  const out: Record<string, { values: { value: string; count: number }[]; has_more: boolean }> = {};
  for (const d of DIMENSIONS) {
    const counts = new Map<string, number>();
    for (const e of inWindow) {
      const v = dimensionValue(e, d);
      if (v !== '') counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out[d] = {
      values: sorted.slice(0, 100).map(([v, count]) => ({ value: clean(v), count })),
      has_more: sorted.length > 100,
    };
  }
  return out;
}

describe('analytics.dimensions on chDB', () => {
  let h: CoreHarness;

  async function dimensions(input: object) {
    const res = await h.callTool(key.projectId, 'analytics.dimensions', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('OTHER');
    return analyticsDimensionsOutput.parse(res.body);
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_dimensions', NOW, [key, other]);
    const iso = (t: number) => new Date(t).toISOString();
    const records = (list: Ev[], mark = '') =>
      list.map((e, i) => ({
        ...e,
        ...(mark && e.platform ? { platform: `${mark}${e.platform}` } : {}),
        timestamp: iso(e.timestamp),
        event_name: 'app_open',
        user_id: `u${i % 9}`,
      }));
    await h.ingest(key, { events: records(events) }).expect(200);
    await h.ingest(other, { events: records(events, 'OTHER') }).expect(200);
  });
  afterAll(async () => {
    await h.close();
  });

  it('lists each dimension by count desc then value, top 100, default 30 days', async () => {
    const body = await dimensions({});
    expect(body.window).toEqual({
      from: new Date(NOW - 30 * DAY).toISOString(),
      to: new Date(NOW).toISOString(),
    });
    // The hostile campaign comes back cleaned of its invisible and bidirectional characters.
    expect(body.dimensions).toEqual(expected(30, (v) => (v === HOSTILE ? 'campevil' : v)));
    expect(body.dimensions.utm_campaign.has_more).toBe(true);
    expect(body.dimensions.utm_campaign.values).toHaveLength(100);
    expect(body.dimensions.platform.values.map((v) => v.value)).toContain('edge_in');
    expect(body.dimensions.utm_medium.values).toEqual([{ value: 'email', count: expect.any(Number) }]);
  });

  it('follows days', async () => {
    const body = await dimensions({ days: 3 });
    expect(body.dimensions).toEqual(expected(3, (v) => (v === HOSTILE ? 'campevil' : v)));
  });

  it('answers an empty project with empty lists', async () => {
    const res = await h.callTool('dim_empty', 'analytics.dimensions', {});
    expect(res.status).toBe(200);
    for (const d of DIMENSIONS) expect(res.body.dimensions[d]).toEqual({ values: [], has_more: false });
  });

  it.each([[{ days: 0 }], [{ days: 366 }], [{ platform: 'ios' }]])('refuses %j with 400', async (input) => {
    const res = await h.callTool(key.projectId, 'analytics.dimensions', input);
    expect(res.status).toBe(400);
  });
});
