import { logFileEntries } from '@svc/tools-recall';
import { createPacer } from '../read-budget';
import { appendRecallAudit } from '../store/audit';
import { getFile, toRecallFile } from '../store/files';
import { openStoredFile } from '../stored-file';
import { type EntriesPage, readEntriesPage } from './entries-page';
import { serve } from './recall-call';

/**
 * log.file_entries, a view: recorded in the recall audit trail before the entries leave (whether
 * or not the file could be read). One page per call, read within the call's budget (entries-page.ts).
 */
export const logFileEntriesTool = serve(
  logFileEntries,
  async ({ ctx, projectId, actor, signal, reads }, input) => {
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
  },
);
