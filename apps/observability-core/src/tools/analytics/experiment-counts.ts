import type { CoreToolContext } from '../core-tool';
import { whereOf } from '../sql/filter';
import { TIMESTAMP_IN_WINDOW } from '../sql/window';

// The SQL behind experiment.results (docs/semantics.md). Every value is a bound parameter.

/** The experiment's definition row (latest by updated_at), if any. */
export interface ExperimentDefinition {
  goal_event: string;
  variants: string[];
  /** '' when the definition names none. */
  baseline: string;
}

export async function loadDefinition(
  ctx: CoreToolContext,
  key: string,
): Promise<ExperimentDefinition | null> {
  const rows = await ctx.ch.query<ExperimentDefinition>(
    `SELECT goal_event, variants, baseline FROM experiments
     WHERE project_id = {project_id:String} AND experiment_key = {key:String}
     ORDER BY updated_at DESC LIMIT 1`,
    { project_id: ctx.projectId, key },
    { signal: ctx.signal },
  );
  return rows[0] ?? null;
}

/**
 * Users of one cell: first exposed to `variant` on UTC date `exposure_day` and (when converted)
 * first converting on `conversion_day` ('' = not converted). Totals and the cumulative daily looks
 * of the mSPRT are sums over these cells.
 */
export interface ExposureCell {
  variant: string;
  exposure_day: string;
  conversion_day: string;
  users: number;
}

export interface CountWindow {
  key: string;
  /** null: count exposures only (no definition, so no goal). */
  goal: string | null;
  /** The definition's variants (ranking hint; any order, may miss some). */
  variants: string[];
  fromMs: number;
  toMs: number;
}

const IN_WINDOW = whereOf({ where: [...TIMESTAMP_IN_WINDOW], params: {} });

/**
 * A user's variant is that of their first `$exposure` in the window (equal first timestamps: the
 * smallest variant name, so the answer is deterministic); exposures without a variant are ignored.
 * A user converted when a goal event in the window is at or after that first exposure (the same
 * millisecond counts, like the funnel's non-decreasing order); the conversion day is that of the
 * first such goal event.
 */
const EXPOSURES = `SELECT user_id, argMin(variant, (timestamp, variant)) AS v, min(timestamp) AS exposed_at
  FROM events
  WHERE ${IN_WINDOW} AND event_name = '$exposure' AND experiment_key = {key:String} AND variant != ''
  GROUP BY user_id`;

const IS_EXPOSURE = `event_name = '$exposure' AND experiment_key = {key:String} AND variant != ''`;

/**
 * Users are grouped by a 64-bit hash of the id (integer keys; the collision risk is documented with
 * the funnel's). The first exposure is one integer per user, min(ms * m + rank of the variant in
 * a sorted variant list), m = list length + 1: the same order as (timestamp, variant)
 * without carrying strings through the aggregation (exact while ms * m fits in Int64, i.e. fewer
 * than ~5 million variants). The sort key starts with event_name, so each side reads one name.
 * Goal times come per user as an array (goal events are few); the conversion is the first at or
 * after the exposure. A goal named '$exposure' matches every exposure, like the join it replaces.
 */
const withGoal = (variants: string) => `WITH arraySort(${variants}) AS vs, toInt64(length(vs) + 1) AS m
  SELECT vs[toUInt32(e % m)] AS variant,
    toString(toDate(fromUnixTimestamp64Milli(intDiv(e, m), 'UTC'), 'UTC')) AS exposure_day,
    if(length(after) > 0, toString(toDate(fromUnixTimestamp64Milli(arrayMin(after), 'UTC'), 'UTC')), '') AS conversion_day,
    toUInt64(count()) AS users
  FROM (
    SELECT x.e AS e, arrayFilter(t -> t >= intDiv(x.e, m), g.goals) AS after
    FROM (
      SELECT cityHash64(user_id) AS h, min(toUnixTimestamp64Milli(timestamp) * m + indexOf(vs, variant)) AS e
      FROM events WHERE ${IN_WINDOW} AND ${IS_EXPOSURE}
      GROUP BY h
    ) AS x
    LEFT JOIN (
      SELECT cityHash64(user_id) AS h, groupArray(toUnixTimestamp64Milli(timestamp)) AS goals
      FROM events WHERE ${IN_WINDOW} AND event_name = {goal:String}
      GROUP BY h
    ) AS g ON g.h = x.h
  )
  GROUP BY variant, exposure_day, conversion_day`;

/**
 * Ranks from the definition's variants first (no extra scan). A variant outside that list ranks 0,
 * below every listed one, so whenever it could decide a user's first exposure it is that user's
 * result and shows as '' (vs[0]; real variants are never ''): then the window's own variants are
 * read and the count is redone. Otherwise the listed ranks order every first exposure exactly.
 */
const WITH_GOAL_LISTED = withGoal(`arrayDistinct(arrayFilter(v -> v != '', {variants:Array(String)}))`);
const WITH_GOAL_SCANNED = withGoal(
  `(SELECT groupUniqArray(variant) FROM events WHERE ${IN_WINDOW} AND ${IS_EXPOSURE})`,
);

const WITHOUT_GOAL = `SELECT v AS variant, toString(toDate(exposed_at, 'UTC')) AS exposure_day, '' AS conversion_day,
    toUInt64(count()) AS users
  FROM (${EXPOSURES})
  GROUP BY variant, exposure_day`;

export async function countExposures(ctx: CoreToolContext, w: CountWindow): Promise<ExposureCell[]> {
  const params = {
    project_id: ctx.projectId,
    key: w.key,
    from_ms: w.fromMs,
    to_ms: w.toMs,
    variants: w.variants,
    ...(w.goal === null ? {} : { goal: w.goal }),
  };
  type Row = { variant: string; exposure_day: string; conversion_day: string; users: string };
  const run = (sql: string) => ctx.ch.query<Row>(sql, params, { signal: ctx.signal });
  let rows = await run(w.goal === null ? WITHOUT_GOAL : WITH_GOAL_LISTED);
  if (w.goal !== null && rows.some((r) => r.variant === '')) rows = await run(WITH_GOAL_SCANNED);
  return rows.map((r) => ({ ...r, users: Number(r.users) }));
}

/** True when the key has any `$exposure` at all (outside the window too). */
export async function hasAnyExposure(ctx: CoreToolContext, key: string): Promise<boolean> {
  const rows = await ctx.ch.query<{ one: number }>(
    `SELECT 1 AS one FROM events
     WHERE project_id = {project_id:String} AND event_name = '$exposure' AND experiment_key = {key:String}
     LIMIT 1`,
    { project_id: ctx.projectId, key },
    { signal: ctx.signal },
  );
  return rows.length > 0;
}

/**
 * The project's experiment keys, from definitions and exposures, most recently active first: what
 * an unknown key's answer offers instead (a typo, or a key of another project).
 */
export async function knownExperimentKeys(ctx: CoreToolContext, limit: number): Promise<string[]> {
  const rows = await ctx.ch.query<{ experiment_key: string }>(
    `SELECT experiment_key, max(at) AS last FROM (
       SELECT experiment_key, toUnixTimestamp(updated_at) AS at FROM experiments
       WHERE project_id = {project_id:String}
       UNION ALL
       SELECT experiment_key, toUnixTimestamp(timestamp) AS at FROM events
       WHERE project_id = {project_id:String} AND event_name = '$exposure' AND experiment_key != ''
     )
     GROUP BY experiment_key ORDER BY last DESC, experiment_key LIMIT {limit:UInt32}`,
    { project_id: ctx.projectId, limit },
    { signal: ctx.signal },
  );
  return rows.map((r) => r.experiment_key);
}
