import type { Page } from '@svc/tool-kit';
import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import type { FeedbackItem } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { queryPage } from '../sql/page';
import { RATING_SQL } from '../stored-values';

interface FeedbackRow {
  ts: string;
  feedback_id: string;
  user_id: string;
  session_id: string;
  message: string;
  rating: number | null;
  platform: string;
  app_version: string;
}

// FINAL: a re-sent feedback (same id and time) is one feedback, also before the merge.
const FROM = 'feedback FINAL';

/** Feedback of the context's project, newest first. */
export async function listFeedback(
  ctx: CoreToolContext,
  filter: SqlFilter,
  limit: number,
): Promise<Page<FeedbackItem>> {
  return queryPage(
    ctx,
    {
      columns: `toUnixTimestamp64Milli(timestamp) AS ts, feedback_id, user_id, session_id, message, ${RATING_SQL} AS rating,
       platform, app_version`,
      from: FROM,
      filter,
      orderBy: 'timestamp DESC, feedback_id ASC',
      limit,
    },
    toFeedbackItem,
  );
}

export async function countFeedback(ctx: CoreToolContext, filter: SqlFilter): Promise<number> {
  const rows = await ctx.ch.query<{ n: string }>(
    `SELECT count() AS n FROM ${FROM} WHERE ${whereOf(filter)}`,
    paramsOf(filter, ctx.projectId),
    { signal: ctx.signal },
  );
  return Number(rows[0]?.n ?? 0);
}

function toFeedbackItem(row: FeedbackRow): FeedbackItem {
  return {
    feedback_id: sanitizeOptional(row.feedback_id) ?? '',
    timestamp: isoFromMs(row.ts),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
    message: sanitizeText(row.message, FIELD_LIMITS.message),
    rating: row.rating === null ? null : Number(row.rating),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
  };
}
