import type { DemoLog } from '@svc/demo-data';

// Plain-JS answers computed from the records that were ingested, independently of the SQL under test.

export interface Entry {
  timestamp: string;
  level: string;
  message: string;
  source: string;
  platform: string | null;
  app_version: string | null;
  user_id: string | null;
  session_id: string | null;
  device_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  event_id: string | null;
  attributes: Record<string, string>;
}

export function entry(l: DemoLog): Entry {
  return {
    timestamp: new Date(l.timestamp).toISOString(),
    level: l.level,
    message: l.message,
    source: l.source,
    platform: l.platform ?? null,
    app_version: l.app_version ?? null,
    user_id: l.user_id ?? null,
    session_id: l.session_id ?? null,
    device_id: l.device_id ?? null,
    trace_id: l.trace_id ?? null,
    span_id: l.span_id ?? null,
    event_id: l.event_id ?? null,
    attributes: l.attributes ?? {},
  };
}

const byTime = (direction: 'desc' | 'asc') => (a: Entry, b: Entry) => {
  const t = a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
  if (t !== 0) return direction === 'desc' ? -t : t;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
};

export function page(
  logs: DemoLog[],
  keep: (l: DemoLog) => boolean,
  limit: number,
  direction: 'desc' | 'asc' = 'desc',
) {
  const all = logs.filter(keep).map(entry).sort(byTime(direction));
  const hasMore = all.length > limit;
  // A list answers a cursor while more follow: opaque and sealed per call, matched by its kind.
  return {
    items: all.slice(0, limit),
    limit,
    has_more: hasMore,
    ...(hasMore ? { next_cursor: expect.any(String) } : {}),
  };
}

export function counts(
  logs: DemoLog[],
  key: (l: DemoLog) => string | null,
  window: { from: string; to: string },
) {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const inside = logs.filter((l) => {
    const t = Date.parse(l.timestamp);
    return t >= from && t <= to;
  });
  const groups = new Map<string | null, number>();
  for (const l of inside) groups.set(key(l), (groups.get(key(l)) ?? 0) + 1);
  return { total: inside.length, groups };
}

/** Ratios as the tools report them: 13 significant digits (docs/semantics.md). */
export const reportedRatio = (part: number, whole: number): number | null =>
  whole === 0 ? null : Number((part / whole).toPrecision(13));
