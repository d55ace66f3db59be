import { UserInputError } from '@svc/errors';
import type { Admit } from '@svc/tool-server/internal-tools';
import type { AnyServedTool } from '@svc/tool-server/serve';
import type { RecallContext } from '../context';
import { DEFAULT_READ_LIMITS, ReadAbandonedError } from '../read-budget';
import { ReadSlots } from '../read-slots';
import { logAuditTool } from './log-audit';
import { logFileEntriesTool } from './log-file-entries';
import { logListFilesTool } from './log-list-files';
import type { FileReads, RecallToolCall } from './recall-call';

/** Every tool recall serves, each bound through `serve` in a file of its own. */
export const recallToolset: readonly AnyServedTool<RecallToolCall>[] = [
  logListFilesTool,
  logFileEntriesTool,
  logAuditTool,
];

/** The file read limits and slots every call of one service shares. */
export function fileReadsOf(ctx: RecallContext): FileReads {
  const limits = ctx.readLimits ?? DEFAULT_READ_LIMITS;
  const slots = new ReadSlots(
    () => ({
      total: limits.concurrentReads,
      perProject: limits.concurrentReadsPerProject,
      perOrg: limits.concurrentReadsPerOrg,
      waitingPerProject: limits.waitingReadsPerProject,
      waitingPerOrg: limits.waitingReadsPerOrg,
      waitingTotal: limits.waitingReads,
    }),
    // Without labels: one series each, whatever the number of projects.
    {
      held: ctx.metrics
        .holding('recall_read_slots_held', 'File read slots held by log.file_entries calls')
        .bind({}),
      waiting: ctx.metrics
        .holding('recall_read_waiting', 'log.file_entries calls waiting for a file read slot')
        .bind({}),
    },
  );
  return { limits, slots };
}

/** Every recall tool records or acts for its caller: a call must name one (X-Svc-Actor). */
export function recallAdmission(ctx: RecallContext): Admit<RecallToolCall> {
  const reads = fileReadsOf(ctx);
  return (call, _tool, answer) =>
    answer({
      ctx,
      projectId: call.projectId,
      actor: call.actor(),
      signal: call.signal,
      reads,
      offset: call.offset,
    });
}

/** Nobody reads the answer: a 4xx ends the call without logging a failure of ours. */
export function callerGoneAs4xx(err: unknown): unknown {
  return err instanceof ReadAbandonedError ? new UserInputError('The caller went away.') : err;
}
