import { fetchFor, sanitizeOptional } from '@svc/tool-kit';
import { crashAggregate } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { paramsOf, whereOf } from '../sql/filter';
import { lastDays } from '../sql/window';
import { signatureHistories } from './signature-history';

const AGGREGATE_DAYS = 14;
const GROUP_COLUMNS = {
  signature: 'signature',
  error_type: 'error_type',
  device_os: 'device_os',
  app_version: 'app_version',
  user_id: 'user_id',
} as const;

/**
 * Last 14 days. count = distinct event ids (re-sent copies of an event carry the same values, so
 * they fall in the same group and count once), users = distinct non-empty user ids. Groups by
 * count desc, then key, crashes without a value (only possible for user_id) last. By signature,
 * each group also carries the history (signature-history.ts).
 */
export const crashAggregateQuery = serve(crashAggregate, async (ctx, input) => {
  const column = GROUP_COLUMNS[input.group_by];
  // Grouped by user, a group's users are 1 (or 0 for crashes without a user): no per-group set.
  const users =
    input.group_by === 'user_id' ? "if(key = '', 0, 1)" : "uniqExactIf(cityHash64(user_id), user_id != '')";
  const w = lastDays(ctx.now, AGGREGATE_DAYS);
  const params = paramsOf(w.filter, ctx.projectId, { fetch: fetchFor(input.limit) });
  const where = whereOf(w.filter);
  const [groups, totals] = await Promise.all([
    ctx.ch.query<{ key: string; n: string; users: string }>(
      `SELECT ${column} AS key, uniqExact(cityHash64(event_id)) AS n, ${users} AS users
       FROM crashes WHERE ${where}
       GROUP BY key ORDER BY n DESC, key = '' ASC, key ASC LIMIT {fetch:UInt32}`,
      params,
      { signal: ctx.signal },
    ),
    ctx.ch.query<{ total: string }>(
      `SELECT uniqExact(cityHash64(event_id)) AS total FROM crashes WHERE ${where}`,
      params,
      {
        signal: ctx.signal,
      },
    ),
  ]);
  const shown = groups.slice(0, input.limit);
  const histories =
    input.group_by === 'signature'
      ? await signatureHistories(
          ctx,
          shown.map((g) => g.key),
        )
      : undefined;
  return {
    window: w.iso,
    group_by: input.group_by,
    total: Number(totals[0]?.total ?? 0),
    groups: shown.map((g) => ({
      key: sanitizeOptional(g.key),
      count: Number(g.n),
      users: Number(g.users),
      ...histories?.get(g.key),
    })),
    limit: input.limit,
    has_more: groups.length > input.limit,
  };
});
