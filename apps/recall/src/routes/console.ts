import { randomBytes } from 'node:crypto';
import { NotFoundError, parseInput } from '@svc/errors';
import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { ConsoleAuthError, type ConsoleCaller, type ConsoleSessions } from '../console-sessions';
import type { RecallContext } from '../context';
import { ReadAbandonedError } from '../read-budget';
import { appendRecallAudit } from '../store/audit';
import { getFile } from '../store/files';
import { insertRequest } from '../store/requests';
import { openStoredFile } from '../stored-file';
import { deviceId } from './device-text';
import { streamDownload, unreadable } from './download';

const id = deviceId;
const triggerBody = z
  .strictObject({ device_id: id.optional(), user_id: id.optional() })
  .refine((b) => b.device_id !== undefined || b.user_id !== undefined, {
    message: 'name a device_id or a user_id',
    path: ['device_id'],
  });

/**
 * The console side (docs/recall.md), for signed-in people only and never a tool: trigger a recall
 * for a device or a user, download a file. Both land in the recall audit trail before they answer.
 * A project of another org, or an org without vis_recall, answers 404 like an unknown project.
 */
export function consoleRouter(ctx: RecallContext, sessions: ConsoleSessions): Router {
  const router = express.Router();

  async function callerOf(req: Request, projectId: string): Promise<ConsoleCaller> {
    const [scheme, token, ...rest] = (req.get('authorization') ?? '').trim().split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0)
      throw new ConsoleAuthError('missing_session');
    const caller = await sessions.resolve(token, projectId);
    if (!caller) throw new ConsoleAuthError('invalid_session');
    if (!caller.projectInOrg || !caller.capabilities.includes('vis_recall'))
      throw new NotFoundError('Unknown project.');
    return caller;
  }

  router.post('/v1/projects/:project_id/recalls', express.json({ limit: '16kb' }), async (req, res) => {
    const projectId = String(req.params.project_id);
    const caller = await callerOf(req, projectId);
    const body = parseInput(triggerBody, req.body ?? {}, 'this request');
    const requestId = `rr_${randomBytes(12).toString('hex')}`;
    const at = ctx.clock();
    await ctx.db.transaction(async (tx) => {
      await insertRequest(tx, {
        request_id: requestId,
        project_id: projectId,
        device_id: body.device_id ?? null,
        user_id: body.user_id ?? null,
        requested_by: caller.userId,
        requested_at: at,
      });
      await appendRecallAudit(tx, projectId, at, {
        action: 'trigger',
        via: 'console',
        user_id: caller.userId,
        token_id: null,
        file_id: null,
        device_id: body.device_id ?? null,
        target_user_id: body.user_id ?? null,
      });
    });
    res.status(201).json({ request_id: requestId, requested_at: at.toISOString() });
  });

  // The file's entries as NDJSON, streamed: an unreadable file answers 400 with the problem (what
  // could be read is in log.file_entries), never an empty or partial download.
  router.get('/v1/projects/:project_id/files/:file_id/download', async (req, res) => {
    const projectId = String(req.params.project_id);
    const caller = await callerOf(req, projectId);
    const row = await getFile(ctx.db, projectId, String(req.params.file_id));
    if (!row) throw new NotFoundError('Unknown file.');
    await appendRecallAudit(ctx.db, projectId, ctx.clock(), {
      action: 'download',
      via: 'console',
      user_id: caller.userId,
      token_id: null,
      file_id: row.file_id,
      device_id: row.device_id,
      target_user_id: row.user_id,
    });
    const opened = await openStoredFile(ctx, row);
    if (opened.problem) throw unreadable(opened.problem);
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      await streamDownload(opened.bytes, opened.key, res, gone.signal, `${row.file_id}.ndjson`);
    } catch (err) {
      if (!(err instanceof ReadAbandonedError)) throw err;
    } finally {
      await opened.bytes.close();
    }
  });
  return router;
}
