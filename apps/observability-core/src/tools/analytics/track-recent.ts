import { trackRecent } from '@svc/tools-analytics';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { containsAny, jsonEscaped } from '../sql/text-match';
import { listEvents } from './event-rows';

/**
 * `search` matches the event name or the properties as stored (JSON text). A needle also matches
 * its JSON-escaped form, so a value with quotes or backslashes is found as the user typed it.
 */
export const trackRecentQuery = serve(trackRecent, (ctx, input) => {
  const search =
    input.search === undefined
      ? undefined
      : containsAny(['event_name', 'properties'], [input.search, jsonEscaped(input.search)], 'search');
  const filter = combine(equals('event_name', input.name), equals('user_id', input.user_id), search);
  return listEvents(ctx, filter, input.limit);
});
