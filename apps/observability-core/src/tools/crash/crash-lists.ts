import { crashBySignature, crashByUser, crashRecent } from '@svc/tools-crash';
import { type CoreToolContext, serve } from '../core-tool';
import {
  type CrashFilter,
  type CrashRow,
  crashEquals,
  type Symbolication,
  selectCrashes,
  selectSymbolications,
  toSummary,
  toWithBreadcrumbs,
} from './crash-rows';

// crash.recent, crash.by_signature, crash.by_user: pages of crashes, newest first, one item per
// event_id; has_more from fetching limit + 1.

async function page<T>(
  ctx: CoreToolContext,
  filter: CrashFilter,
  limit: number,
  toItem: (row: CrashRow, symbolication: Symbolication | undefined) => T,
  withBreadcrumbs = false,
) {
  const rows = await selectCrashes(ctx, filter, limit + 1, { breadcrumbs: withBreadcrumbs });
  const shown = rows.slice(0, limit);
  const symbolications = await selectSymbolications(
    ctx,
    shown.map((r) => r.event_id),
    false,
  );
  return {
    items: shown.map((r) => toItem(r, symbolications.get(r.event_id))),
    limit,
    has_more: rows.length > limit,
  };
}

/** Crash summaries matching `filter`, newest first, one per event_id (user.detail, session.detail). */
export const crashSummaryPage = (ctx: CoreToolContext, filter: CrashFilter, limit: number) =>
  page(ctx, filter, limit, toSummary);

const everything: CrashFilter = { where: [], params: {} };

export const crashRecentTool = serve(crashRecent, (ctx, input) =>
  page(ctx, everything, input.limit, toWithBreadcrumbs, true),
);

export const crashBySignatureTool = serve(crashBySignature, (ctx, input) =>
  page(ctx, crashEquals('signature', input.signature), input.limit, toSummary),
);

export const crashByUserTool = serve(crashByUser, (ctx, input) =>
  page(ctx, crashEquals('user_id', input.user_id), input.limit, toSummary),
);
