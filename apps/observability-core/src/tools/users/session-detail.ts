import { sessionDetail } from '@svc/tools-users';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { summarize } from './channel-summary';
import { ALL_CHANNELS, channelsWithTotals, listChannels } from './detail-channels';
import { listSessions } from './session-rows';

/** One session over every channel, with the session record as last reported. */
export const sessionDetailQuery = serve(sessionDetail, async (ctx, input) => {
  const [seen, lists, record] = await Promise.all([
    summarize(ctx, 'session_id', input.session_id, ALL_CHANNELS),
    listChannels(ctx, 'session_id', input.session_id, input.limit),
    listSessions(ctx, equalsKey('session_id', input.session_id), 1),
  ]);
  return {
    session_id: input.session_id,
    found: seen.found,
    session: record.items[0] ?? null,
    user_ids: seen.user_ids,
    first_seen: seen.first_seen,
    last_seen: seen.last_seen,
    platforms: seen.platforms,
    app_versions: seen.app_versions,
    limit: input.limit,
    ...channelsWithTotals(seen.totals, lists),
  };
});
