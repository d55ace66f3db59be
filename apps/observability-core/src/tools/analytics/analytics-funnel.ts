import { analyticsFunnel } from '@svc/tools-analytics';
import { HOUR_MS } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { reported } from '../precision';
import { combine, paramsOf, whereOf } from '../sql/filter';
import { lastDays, type TimeWindow } from '../sql/window';
import { eventFilter, type RetentionFilters } from './retention-counts';

// analytics.funnel (docs/semantics.md): windowFunnel in its default mode over the events of
// the window that match the filters, one level per user, then users per level.
//
// Timestamps go to windowFunnel as epoch milliseconds (UInt64), not toDateTime seconds, so
// sub-second order is kept and the window is exact to the millisecond. Ties are what docs/semantics.md
// states: timestamps need only be non-decreasing, so events of the same millisecond count in
// step order, and one event named by consecutive repeated steps fills them all (windowFunnel
// orders equal timestamps by step).

/** Users per funnel level reached (1..steps), from one scan of the window. */
async function usersByLevel(
  ctx: CoreToolContext,
  steps: readonly string[],
  windowMs: number,
  filters: RetentionFilters,
  w: TimeWindow,
): Promise<Map<number, number>> {
  const filter = combine(eventFilter(filters), w.filter, {
    where: ['event_name IN {steps:Array(String)}'],
    params: { steps },
  });
  // One constant condition per step position; the names travel as parameters.
  const conditions = steps.map((_, i) => `event_name = {step_${i}:String}`).join(', ');
  const stepParams = Object.fromEntries(steps.map((s, i) => [`step_${i}`, s]));
  // Users are grouped by user_key, the 64-bit hash of their id stored at insert (migration 13):
  // integer keys are several times cheaper than strings, and a collision among even 10^8 users
  // has a probability below 10^-3.
  const rows = await ctx.ch.query<{ level: number; users: string }>(
    `SELECT level, count() AS users FROM (
       SELECT windowFunnel({window_ms:UInt64})(toUInt64(toUnixTimestamp64Milli(timestamp)), ${conditions}) AS level
       FROM events WHERE ${whereOf(filter)}
       GROUP BY user_key
     ) WHERE level > 0 GROUP BY level`,
    paramsOf(filter, ctx.projectId, { ...stepParams, window_ms: windowMs }),
    { signal: ctx.signal },
  );
  return new Map(rows.map((r) => [Number(r.level), Number(r.users)]));
}

const share = (part: number, whole: number) => (whole === 0 ? null : reported(part / whole));

export const analyticsFunnelQuery = serve(analyticsFunnel, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const byLevel = await usersByLevel(ctx, input.steps, input.window_hours * HOUR_MS, input, w);
  // Reaching step k means reaching level k or deeper.
  const reached = input.steps.map((_, i) => {
    let users = 0;
    for (const [level, n] of byLevel) if (level > i) users += n;
    return users;
  });
  const first = reached[0]!;
  return {
    window: w.iso,
    window_hours: input.window_hours,
    steps: input.steps.map((event_name, i) => ({
      step: i + 1,
      event_name,
      users: reached[i]!,
      conversion_from_previous: share(reached[i]!, i === 0 ? first : reached[i - 1]!),
      conversion_from_first: share(reached[i]!, first),
    })),
    overall_conversion: share(reached[reached.length - 1]!, first),
  };
});
