import type { CoreToolContext } from '../core-tool';

// The SQL behind experiment.results (DESIGN.md section 7). Every value is a bound parameter.

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
  fromMs: number;
  toMs: number;
}

const IN_WINDOW = `project_id = {project_id:String}
  AND timestamp >= fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')
  AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')`;

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

const WITH_GOAL = `SELECT v AS variant, exposure_day, conversion_day, toUInt64(count()) AS users FROM (
    SELECT x.user_id AS uid, any(x.v) AS v, toString(toDate(any(x.exposed_at), 'UTC')) AS exposure_day,
      if(countIf(g.timestamp >= x.exposed_at) > 0,
         toString(toDate(minIf(g.timestamp, g.timestamp >= x.exposed_at), 'UTC')), '') AS conversion_day
    FROM (${EXPOSURES}) AS x
    LEFT JOIN (
      SELECT user_id, timestamp FROM events
      WHERE ${IN_WINDOW} AND event_name = {goal:String}
        AND user_id IN (SELECT user_id FROM events WHERE ${IN_WINDOW} AND event_name = '$exposure'
                        AND experiment_key = {key:String})
    ) AS g ON g.user_id = x.user_id
    GROUP BY x.user_id
  )
  GROUP BY variant, exposure_day, conversion_day`;

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
    ...(w.goal === null ? {} : { goal: w.goal }),
  };
  const rows = await ctx.ch.query<{
    variant: string;
    exposure_day: string;
    conversion_day: string;
    users: string;
  }>(w.goal === null ? WITHOUT_GOAL : WITH_GOAL, params, { signal: ctx.signal });
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
