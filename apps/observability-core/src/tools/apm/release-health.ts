import { releaseHealth } from '@svc/tools-apm';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { paramsOf, whereOf } from '../sql/filter';
import { columnInWindow, lastDays } from '../sql/window';
import { METRIC_VALUE_SQL } from '../stored-values';
import { componentsOf, gradeOf, scoreOf } from './release-score';

interface SessionRow {
  app_version: string;
  n: string;
  crashed: string;
  anr: string;
}

interface MetricRow {
  app_version: string;
  starts: string;
  p95: number;
  frames: string;
  fps: number;
}

/**
 * Per version asked for, in that order (each once): sessions started in the window as last
 * reported (FINAL), their crash-free and ANR rates, and the window's app_start_ms p95 (exact,
 * interpolated) and fps average of that version; then the score and grade (release-score.ts).
 */
export const releaseHealthQuery = serve(releaseHealth, async (ctx, input) => {
  const versions = [...new Set(input.versions ?? [input.version!])];
  const w = lastDays(ctx.now, input.days);
  const versionIn = { where: ['app_version IN {versions:Array(String)}'], params: { versions } };
  const started = {
    where: [...versionIn.where, ...columnInWindow('started_at')],
    params: { ...versionIn.params, ...w.filter.params },
  };
  const sampled = {
    where: [...versionIn.where, ...w.filter.where, "name IN ('app_start_ms', 'fps')"],
    params: { ...versionIn.params, ...w.filter.params },
  };
  const opts = { signal: ctx.signal };
  const [sessions, metrics] = await Promise.all([
    ctx.ch.query<SessionRow>(
      `SELECT app_version, count() AS n, countIf(status = 'crashed') AS crashed, countIf(status = 'anr') AS anr
       FROM sessions FINAL WHERE ${whereOf(started)} GROUP BY app_version`,
      paramsOf(started, ctx.projectId),
      opts,
    ),
    ctx.ch.query<MetricRow>(
      `SELECT app_version,
              countIf(name = 'app_start_ms') AS starts,
              quantileExactInclusiveIf(0.95)(${METRIC_VALUE_SQL}, name = 'app_start_ms') AS p95,
              countIf(name = 'fps') AS frames,
              avgIf(${METRIC_VALUE_SQL}, name = 'fps') AS fps
       FROM metrics WHERE ${whereOf(sampled)} GROUP BY app_version`,
      paramsOf(sampled, ctx.projectId),
      opts,
    ),
  ]);
  const sessionsOf = new Map(sessions.map((r) => [r.app_version, r]));
  const metricsOf = new Map(metrics.map((r) => [r.app_version, r]));
  return {
    window: w.iso,
    releases: versions.map((version) => {
      const s = sessionsOf.get(version);
      const m = metricsOf.get(version);
      const n = Number(s?.n ?? 0);
      const starts = Number(m?.starts ?? 0);
      const frames = Number(m?.frames ?? 0);
      const crashFreeRate = n > 0 ? reported((n - Number(s!.crashed)) / n) : null;
      const anrRate = n > 0 ? reported(Number(s!.anr) / n) : null;
      const startupP95Ms = starts > 0 ? reported(m!.p95) : null;
      const fpsAvg = frames > 0 ? reported(m!.fps) : null;
      const components = componentsOf({ crashFreeRate, anrRate, startupP95Ms, fpsAvg });
      const score = scoreOf(components);
      return {
        version,
        found: n > 0 || starts > 0 || frames > 0,
        sessions: n,
        crash_free_session_rate: crashFreeRate,
        anr_rate: anrRate,
        startup_p95_ms: startupP95Ms,
        fps_avg: fpsAvg,
        components,
        score,
        grade: gradeOf(score),
      };
    }),
  };
});
