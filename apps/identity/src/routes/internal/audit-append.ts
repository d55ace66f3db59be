import { auditEntrySchema } from '@svc/audit';
import { BackendUnavailableError } from '@svc/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { type AppendedHead, appendAudit, type KnownHeads } from '../../store/audit';

const auditBatch = z.strictObject({ records: z.array(auditEntrySchema).min(1).max(1000) });

/** POST /v1/audit: a gateway's audit records, committed and anchored before the answer. */
export function addAuditAppendRoute(router: Router, ctx: IdentityContext): void {
  const auditWritten = ctx.metrics.counter('identity_audit_records_written_total', 'Audit records committed');
  const anchor = checkpointWriter(ctx);
  // Each project's chain head as this process last committed it: the next append of that project
  // starts there, one statement instead of two (store/audit.ts).
  const knownHeads: KnownHeads = new Map();

  router.post('/v1/audit', async (req, res) => {
    const { records } = parseRequest(auditBatch, req.body);
    // Answer only after the commit: the gateway releases a tool result on this 201 alone.
    const { written, heads } = await appendAudit(ctx.db, records, knownHeads);
    auditWritten.inc({}, written);
    await anchor(heads);
    res.status(201).json({ written });
  });
}

/**
 * The append is committed; its checkpoint is written before the answer, so no result leaves a
 * gateway before its record is anchored outside the database too. Should the write fail, the
 * records stay committed and the answer is a 503: the gateway's retry appends nothing new and
 * anchors the head again.
 */
function checkpointWriter(ctx: IdentityContext): (heads: AppendedHead[]) => Promise<void> {
  const checkpointSeconds = ctx.metrics.histogram(
    'identity_audit_checkpoint_write_seconds',
    'Time an audit append waits for its checkpoint to be on disk',
    [],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  );
  const checkpointFailures = ctx.metrics.counter(
    'identity_audit_checkpoint_failures_total',
    'Audit appends committed but answered 503 because their checkpoint could not be written',
  );
  return async (heads) => {
    const at = ctx.clock().toISOString();
    const started = performance.now();
    try {
      await ctx.checkpoints.append(heads.map((head) => ({ ...head, at })));
    } catch (err) {
      checkpointFailures.inc();
      ctx.logger.error(
        { event: 'audit_checkpoint_failed', err, location: ctx.checkpoints.location },
        'audit records committed but their checkpoint could not be written',
      );
      throw new BackendUnavailableError('audit checkpoint log', 1, { cause: err });
    } finally {
      checkpointSeconds.observe({}, (performance.now() - started) / 1000);
    }
  };
}
