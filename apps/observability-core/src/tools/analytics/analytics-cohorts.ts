import { analyticsCohorts } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import { serve } from '../core-tool';
import { dayIndex, isoDate } from '../sql/window';
import { nextPeriod, periodStart } from './cohorts-periods';
import { dayOffsetColumns } from './retention-columns';
import { queryCohortCounts } from './retention-counts';

/**
 * analytics.cohorts: the day-0 groups of analytics.retention, grouped by the period of day 0.
 * Every period from the one holding the window's first date to the one holding today is a row
 * (size 0 when nobody was first seen then), oldest first.
 */
export const analyticsCohortsQuery = serve(analyticsCohorts, async (ctx, input) => {
  const counts = await queryCohortCounts(ctx, input);
  const g = input.granularity;
  const rows = [];
  const last = periodStart(counts.today, g);
  for (let start = periodStart(dayIndex(counts.fromMs), g); start <= last; start = nextPeriod(start, g)) {
    const end = nextPeriod(start, g);
    const groups = counts.byDay0.filter((c) => c.day0 >= start && c.day0 < end);
    rows.push({
      cohort: isoDate(start),
      size: groups.reduce((s, c) => s + c.size, 0),
      days: dayOffsetColumns(groups, counts.today, input.max_day),
    });
  }
  return {
    window: { from: isoFromMs(counts.fromMs), to: isoFromMs(counts.toMs) },
    granularity: g,
    max_day: input.max_day,
    cohorts: rows,
  };
});
