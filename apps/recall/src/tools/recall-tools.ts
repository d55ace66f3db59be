import type { AnyTool, CallActor } from '@svc/tool-kit';
import { sanitizeOptional } from '@svc/tool-kit';
import type { InternalTool } from '@svc/tool-server/internal-tools';
import { logAudit, logFileEntries, logListFiles } from '@svc/tools-recall';
import type { z } from 'zod';
import type { RecallContext } from '../context';
import { readStoredFile } from '../read-file';
import { appendRecallAudit, listRecallAudit } from '../store/audit';
import { getFile, listFiles, toRecallFile } from '../store/files';
import { sanitizeEntry } from './sanitize-entry';

export interface RecallToolCall<I> {
  ctx: RecallContext;
  projectId: string;
  actor: CallActor;
  input: I;
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
 * could be read). Filters apply to the entries read; `after_line` pages.
 */
async function fileEntriesTool({
  ctx,
  projectId,
  actor,
  input,
}: RecallToolCall<z.output<typeof logFileEntries.input>>) {
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
  const decoded = await readStoredFile(ctx, row);
  const level = input.level?.toLowerCase();
  const needle = input.q?.toLowerCase();
  const matching = decoded.entries.filter(
    (e) =>
      (input.after_line === undefined || e.line > input.after_line) &&
      (level === undefined || e.level.toLowerCase() === level) &&
      (needle === undefined ||
        e.message.toLowerCase().includes(needle) ||
        e.tag?.toLowerCase().includes(needle) === true),
  );
  return {
    file_id: row.file_id,
    found: true,
    file: toRecallFile(row),
    status: decoded.problem ? ('unreadable' as const) : ('ok' as const),
    problem: decoded.problem,
    lines_read: decoded.entries.length,
    items: matching.slice(0, input.limit).map(sanitizeEntry),
    limit: input.limit,
    has_more: matching.length > input.limit,
  };
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
  return HANDLERS.map(([definition, handler]) => ({
    definition,
    run: ({ projectId, actor, input }) => handler({ ctx, projectId, actor, input: input as never }),
  }));
}
