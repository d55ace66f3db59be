import { userDetail } from '@svc/tools-users';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { summarize } from './channel-summary';
import { ALL_CHANNELS, channel, channelsWithTotals, listChannels } from './detail-channels';
import { listSessions } from './session-rows';

/** One user over every channel, with totals and first/last seen over all of them. */
export const userDetailQuery = serve(userDetail, async (ctx, input) => {
  const [seen, lists, sessions] = await Promise.all([
    summarize(ctx, 'user_id', input.user_id, ALL_CHANNELS),
    listChannels(ctx, 'user_id', input.user_id, input.limit),
    listSessions(ctx, equalsKey('user_id', input.user_id), input.limit),
  ]);
  return {
    user_id: input.user_id,
    found: seen.found,
    first_seen: seen.first_seen,
    last_seen: seen.last_seen,
    platforms: seen.platforms,
    app_versions: seen.app_versions,
    limit: input.limit,
    ...channelsWithTotals(seen.totals, lists),
    sessions: channel(seen.totals.sessions, sessions.items),
  };
});
