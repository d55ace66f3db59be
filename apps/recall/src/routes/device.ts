import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, parseInput, UserInputError } from '@svc/errors';
import { authenticateSignedRequest, type IngestKeyResolver, updateInSlices } from '@svc/ingest-auth';
import type { Queryable } from '@svc/postgres';
import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import type { RecallContext } from '../context';
import { createDeviceReplays } from '../device-replays';
import { claimUploadDigest, fileWithDigest, insertFile } from '../store/files';
import { fulfillRequest, pendingRequests } from '../store/requests';
import { calendarDay, deviceId, deviceText, MAX_KEY_VERSION } from './device-text';
import { answerRequest } from './upload-request';

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const id = deviceId;
const uploadQuery = z.strictObject({
  device_id: id,
  file_name: deviceText(255),
  date: calendarDay,
  key_version: z.coerce.number().int().min(1).max(MAX_KEY_VERSION),
  user_id: id.optional(),
  session_id: id.optional(),
  request_id: id.optional(),
});
const pollQuery = z.strictObject({ device_id: id, user_id: id.optional() });

export const newFileId = () => `rf_${randomBytes(12).toString('hex')}`;

/** A 20 MB body is hashed a megabyte at a time: the event loop turns between megabytes. */
async function sha256Of(body: Buffer): Promise<string> {
  const hash = createHash('sha256');
  await updateInSlices(hash, body);
  return hash.digest('hex');
}

/**
 * The device side (docs/recall.md). Every request is signed whole with a project ingest key (v2:
 * method, path and query as sent, timestamp, nonce, raw body; a GET signs an empty body) and is
 * single-use: a nonce seen before is a replay (409). What the query says (which device, file and
 * recall an upload is for) is thus the signer's, and cannot be changed under a captured signature.
 * - GET  /device/v1/key: the project's active data key, to encrypt files with;
 * - POST /device/v1/files?device_id&file_name&date&key_version[&user_id&session_id&request_id]:
 *   one encrypted file as the raw body;
 * - GET  /device/v1/recalls?device_id[&user_id]: recall requests waiting for this device.
 */
export function deviceRouter(ctx: RecallContext, ingestKeys: IngestKeyResolver): Router {
  const router = express.Router();
  const uploads = ctx.metrics.counter('recall_uploads_total', 'Device log files accepted');
  const replays = createDeviceReplays(ctx.db, ctx.clock);
  const authenticate = async (req: Request, body: Buffer) => {
    const signed = await authenticateSignedRequest(
      (h) => req.get(h),
      // originalUrl: the path and query exactly as the request line sent them.
      { method: req.method, target: req.originalUrl, body },
      { ingestKeys, now: () => ctx.clock().getTime() },
    );
    await replays.admit(signed);
    return signed.projectId;
  };

  router.get('/v1/key', async (req, res) => {
    const projectId = await authenticate(req, Buffer.alloc(0));
    const key = await ctx.keys.active(projectId);
    res.json({ key_version: key.version, key: key.key.toString('base64'), algorithm: 'AES-256-GCM' });
  });

  router.get('/v1/recalls', async (req, res) => {
    const projectId = await authenticate(req, Buffer.alloc(0));
    const query = parseInput(pollQuery, req.query, 'this request');
    const pending = await pendingRequests(ctx.db, projectId, query.device_id, query.user_id);
    res.json({
      items: pending.map((r) => ({
        request_id: r.request_id,
        requested_at: new Date(r.requested_at).toISOString(),
      })),
    });
  });

  router.post(
    '/v1/files',
    express.raw({ type: () => true, limit: MAX_UPLOAD_BYTES, inflate: false }),
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const projectId = await authenticate(req, body);
      const meta = parseInput(uploadQuery, req.query, 'this upload');
      if (body.length === 0) throw new UserInputError('An empty body is not a log file.');
      const key = await ctx.keys.version(projectId, meta.key_version);
      if (!key) throw new UserInputError('Unknown key_version for this project: ask GET /device/v1/key.');
      const sha256 = await sha256Of(body);
      const uploadedBefore = async (q: Queryable) => {
        const storedAs = await fileWithDigest(q, projectId, sha256);
        return new ConflictError(
          `This file was uploaded before (file_id ${storedAs}): the same bytes are stored once.`,
          { details: { file_id: storedAs } },
        );
      };
      // Each upload is encrypted under a fresh IV: the same bytes are the same upload sent again.
      if (await fileWithDigest(ctx.db, projectId, sha256)) throw await uploadedBefore(ctx.db);
      const fileId = newFileId();
      const at = ctx.clock();
      await ctx.files.put(projectId, fileId, body);
      try {
        await ctx.db.transaction(async (tx) => {
          if (!(await claimUploadDigest(tx, projectId, sha256, fileId))) throw await uploadedBefore(tx);
          const answers = meta.request_id
            ? await answerRequest(tx, projectId, meta.request_id, meta)
            : { fulfils: false };
          await insertFile(tx, {
            file_id: fileId,
            project_id: projectId,
            device_id: meta.device_id,
            user_id: meta.user_id ?? null,
            session_id: meta.session_id ?? null,
            file_name: meta.file_name,
            file_date: meta.date,
            size_bytes: body.length,
            sha256,
            key_version: meta.key_version,
            request_id: meta.request_id ?? null,
            uploaded_at: at,
          });
          if (answers.fulfils) await fulfillRequest(tx, projectId, meta.request_id!, fileId, at);
        });
      } catch (err) {
        // No row names the bytes: they go (a failure to remove them leaves an orphan, never a file).
        await ctx.files.remove(projectId, fileId).catch(() => undefined);
        throw err;
      }
      uploads.inc();
      res.status(201).json({ file_id: fileId });
    },
  );
  return router;
}
