import { analyticsRetention } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import { serve } from '../core-tool';
import { dayOffsetColumns } from './retention-columns';
import { queryCohortCounts } from './retention-counts';

/** analytics.retention: all day-0 groups of the window added into one curve. */
export const analyticsRetentionQuery = serve(analyticsRetention, async (ctx, input) => {
  const counts = await queryCohortCounts(ctx, input);
  return {
    window: { from: isoFromMs(counts.fromMs), to: isoFromMs(counts.toMs) },
    max_day: input.max_day,
    cohort_size: counts.byDay0.reduce((s, g) => s + g.size, 0),
    days: dayOffsetColumns(counts.byDay0, counts.today, input.max_day),
  };
});
