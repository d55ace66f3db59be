import type { AnyTool, CallActor } from '@svc/tool-kit';
import { sanitizeOptional, UserInputError } from '@svc/tool-kit';
import type { InternalTool } from '@svc/tool-server/internal-tools';
import { logAudit, logFileEntries, logListFiles } from '@svc/tools-recall';
import type { z } from 'zod';
import type { RecallContext } from '../context';
import { createPacer, DEFAULT_READ_LIMITS, ReadAbandonedError, type ReadLimits } from '../read-budget';
import { ReadSlots } from '../read-slots';
import { appendRecallAudit, listRecallAudit } from '../store/audit';
import { getFile, listFiles, toRecallFile } from '../store/files';
import { openStoredFile } from '../stored-file';
import { type EntriesPage, readEntriesPage } from './entries-page';

export interface RecallToolCall<I> {
  ctx: RecallContext;
  projectId: string;
  actor: CallActor;
  input: I;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  reads: FileReads;
}

/** The limits of file reads and the slots they take turns in, shared by every call. */
export interface FileReads {
  limits: ReadLimits;
  slots: ReadSlots;
}

type Handler = (call: RecallToolCall<never>) => Promise<unknown>;

const page = <T>(rows: T[], limit: number) => ({
  items: rows.slice(0, limit),
  limit,
  has_more: rows.length > limit,
});

async function listFilesTool({ ctx, projectId, input }: RecallToolCall<z.output<typeof logListFiles.input>>) {
  const rows = await listFiles(ctx.db, projectId, input, input.limit + 1);
  return page(rows.map(toRecallFile), input.limit);
}

/**
 * A view: recorded in the recall audit trail before the entries leave (whether or not the file
 * could be read). One page per call, read within the call's budget (entries-page.ts).
 */
async function fileEntriesTool({
  ctx,
  projectId,
  actor,
  input,
  signal,
  reads,
}: RecallToolCall<z.output<typeof logFileEntries.input>>) {
  const startedAt = performance.now();
  const row = await getFile(ctx.db, projectId, input.file_id);
  if (!row) {
    return {
      file_id: input.file_id,
      found: false,
      file: null,
      status: 'ok' as const,
      problem: null,
      lines_read: 0,
      items: [],
      limit: input.limit,
      has_more: false,
      scanned_through_line: 0,
    };
  }
  await appendRecallAudit(ctx.db, projectId, ctx.clock(), {
    action: 'view',
    via: actor.transport,
    user_id: actor.user_id,
    token_id: actor.token_id,
    file_id: row.file_id,
    device_id: row.device_id,
    target_user_id: row.user_id,
  });
  const answer = (page: Omit<EntriesPage, 'stats'>) => ({
    file_id: row.file_id,
    found: true,
    file: toRecallFile(row),
    status: page.status,
    problem: page.problem,
    lines_read: page.lines_read,
    items: page.items,
    limit: input.limit,
    has_more: page.has_more,
    scanned_through_line: page.scanned_through_line,
  });
  const limits = reads.limits;
  // Released on every way out below: an answer, a problem, an error, the time budget, the caller
  // gone (the pacer throws at its next turn).
  const release = await reads.slots.acquire({
    projectId,
    orgId: actor.org_id ?? null,
    waitMs: limits.callMs - (performance.now() - startedAt),
    limitMs: limits.callMs,
    signal,
  });
  try {
    const opened = await openStoredFile(ctx, row);
    if (opened.problem) {
      return answer({
        status: 'unreadable',
        problem: opened.problem,
        lines_read: 0,
        items: [],
        has_more: false,
        scanned_through_line: 0,
      });
    }
    try {
      const pacer = createPacer({ limitMs: limits.callMs, startedAt, signal });
      return answer(await readEntriesPage(opened.bytes, opened.key, input, limits, pacer));
    } finally {
      await opened.bytes.close();
    }
  } finally {
    release();
  }
}

async function auditTool({ ctx, projectId, input }: RecallToolCall<z.output<typeof logAudit.input>>) {
  const rows = await listRecallAudit(ctx.db, projectId, input, input.limit + 1);
  return page(
    rows.map((r) => ({
      ...r,
      at: new Date(r.at).toISOString(),
      device_id: sanitizeOptional(r.device_id),
      target_user_id: sanitizeOptional(r.target_user_id),
    })),
    input.limit,
  );
}

const HANDLERS: [AnyTool, Handler][] = [
  [logListFiles, listFilesTool as Handler],
  [logFileEntries, fileEntriesTool as Handler],
  [logAudit, auditTool as Handler],
];

/** The three recall tools, bound to the service's context, for the internal tool endpoint. */
export function recallTools(ctx: RecallContext): InternalTool[] {
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
  const reads: FileReads = { limits, slots };
  return HANDLERS.map(([definition, handler]) => ({
    definition,
    run: async ({ projectId, actor, input, signal }) => {
      try {
        return await handler({ ctx, projectId, actor, input: input as never, signal, reads });
      } catch (err) {
        // Nobody reads the answer: a 4xx ends the call without logging a failure of ours.
        if (err instanceof ReadAbandonedError) throw new UserInputError('The caller went away.');
        throw err;
      }
    },
  }));
}
