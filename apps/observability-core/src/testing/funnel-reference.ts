// Test-only: the funnel of docs/semantics.md written plainly over raw records (no SQL, no
// windowFunnel), so the tool can be checked against an independent reading of the definition.
// A user reaches step k if events named steps 1..k exist with non-decreasing timestamps, the
// k-th within the window of the first; only events in [fromMs, toMs] matching the filters count.

export interface RawEvent {
  user_id: string;
  event_name: string;
  /** Epoch ms. */
  timestamp: number;
  platform?: string;
  app_version?: string;
  properties?: Record<string, unknown>;
}

export interface FunnelQuery {
  steps: readonly string[];
  fromMs: number;
  toMs: number;
  windowMs: number;
  filters: Partial<Record<'platform' | 'app_version' | 'utm_source' | 'utm_medium' | 'utm_campaign', string>>;
}

function dimensionValue(e: RawEvent, dimension: string): string {
  if (dimension === 'platform') return e.platform ?? '';
  if (dimension === 'app_version') return e.app_version ?? '';
  const v = e.properties?.[dimension];
  return typeof v === 'string' ? v : '';
}

export function matchesFilters(e: RawEvent, filters: FunnelQuery['filters']): boolean {
  for (const [dimension, wanted] of Object.entries(filters)) {
    if (wanted !== undefined && dimensionValue(e, dimension) !== wanted) return false;
  }
  return true;
}

/** Deepest step (0..steps.length) one user's events reach. */
function deepestStep(events: RawEvent[], q: FunnelQuery): number {
  let best = 0;
  for (const start of events) {
    if (start.event_name !== q.steps[0]) continue;
    let reached = 1;
    let at = start.timestamp;
    for (let i = 1; i < q.steps.length; i++) {
      // The earliest fitting event for step i leaves the most room for the steps after it.
      let next: number | undefined;
      for (const e of events) {
        if (e.event_name !== q.steps[i] || e.timestamp < at || e.timestamp > start.timestamp + q.windowMs)
          continue;
        if (next === undefined || e.timestamp < next) next = e.timestamp;
      }
      if (next === undefined) break;
      at = next;
      reached++;
    }
    if (reached > best) best = reached;
  }
  return best;
}

/** Users reaching each step, in step order. */
export function referenceFunnelUsers(all: readonly RawEvent[], q: FunnelQuery): number[] {
  const byUser = new Map<string, RawEvent[]>();
  for (const e of all) {
    if (e.timestamp < q.fromMs || e.timestamp > q.toMs || !matchesFilters(e, q.filters)) continue;
    const list = byUser.get(e.user_id) ?? [];
    list.push(e);
    byUser.set(e.user_id, list);
  }
  const users = q.steps.map(() => 0);
  for (const events of byUser.values()) {
    const deepest = deepestStep(events, q);
    for (let i = 0; i < deepest; i++) users[i]!++;
  }
  return users;
}

/** The whole `steps` answer of analytics.funnel, from the users per step. */
export function referenceFunnelSteps(steps: readonly string[], users: number[]) {
  // Ratios are reported to 13 significant digits (docs/semantics.md).
  const ratio = (a: number, b: number) => (b === 0 ? null : Number((a / b).toPrecision(13)));
  return {
    steps: steps.map((event_name, i) => ({
      step: i + 1,
      event_name,
      users: users[i]!,
      conversion_from_previous: ratio(users[i]!, users[i === 0 ? 0 : i - 1]!),
      conversion_from_first: ratio(users[i]!, users[0]!),
    })),
    overall_conversion: ratio(users[users.length - 1]!, users[0]!),
  };
}
