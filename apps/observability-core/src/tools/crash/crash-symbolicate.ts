import { crashSymbolicate } from '@svc/tools-crash';
import { enqueueSymbolication } from '../../symbolication/jobs';
import { serve } from '../core-tool';

/**
 * crash.symbolicate: records a request and answers at once; the symbolication worker
 * (symbolication/worker.ts) does the work and crash.get shows the result. A crash the project does
 * not have is `accepted: false` (the lookup-of-something-missing rule: 200, a boolean, no error),
 * and nothing is queued.
 */
export const crashSymbolicateQuery = serve(crashSymbolicate, async (ctx, input) => {
  const found = await ctx.ch.query<{ n: string }>(
    `SELECT count() AS n FROM crashes
     WHERE project_id = {project_id:String} AND event_id = {event_id:String}`,
    { project_id: ctx.projectId, event_id: input.event_id },
    { signal: ctx.signal },
  );
  if (Number(found[0]?.n ?? 0) === 0) return { event_id: input.event_id, accepted: false };
  await enqueueSymbolication(ctx.ch, ctx.projectId, input.event_id, ctx.now);
  return { event_id: input.event_id, accepted: true };
});
