import { crashGet } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { selectCrashes, selectSymbolications, toDetail } from './crash-rows';

/** One crash by event id with raw and (when symbolication ran) symbolicated frames. */
export const crashGetQuery = serve(crashGet, async (ctx, input) => {
  const [row] = await selectCrashes(ctx, equalsKey('event_id', input.event_id), 1, {
    breadcrumbs: true,
    frames: true,
    point: true,
  });
  if (!row) return { event_id: input.event_id, found: false, crash: null };
  const symbolications = await selectSymbolications(ctx, [row.event_id], true);
  const crash = toDetail(row, symbolications.get(row.event_id));
  return { event_id: crash.event_id, found: true, crash };
});
