import type { ClickHouse } from '@svc/clickhouse';
import { BackendUnavailableError, UnauthorizedError, UserInputError } from '@svc/errors';
import { authenticateIngest, type IngestKeyResolver } from '@svc/ingest-auth';
import type { Metrics } from '@svc/metrics';
import { type Logger, toWellFormed } from '@svc/tool-kit';
import { debugFileKind, symbolPlatform } from '@svc/tools-crash';
import express, { type Router } from 'express';
import { z } from 'zod';
import type { DebugFileStore } from '../symbolication/debug-file-store';
import { debugFileId, describeUpload, insertDebugFile, KIND_PLATFORMS } from '../symbolication/debug-files';
import { ingestBodyOf, readIngestBody } from './read-body';

export interface DebugFilesRouterDeps {
  ch: ClickHouse;
  ingestKeys: IngestKeyResolver;
  files: DebugFileStore;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Largest accepted file; beyond it 413. Default 50 MB. */
  maxBytes?: number;
}

export const DEFAULT_MAX_DEBUG_FILE_BYTES = 50 * 1024 * 1024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const PRINTABLE = /^[^\u0000-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]+$/;

const uploadQuery = z.strictObject({
  kind: debugFileKind,
  platform: symbolPlatform,
  // Display and matching only: the file is stored under its content hash, never under this name.
  // Lone surrogates (never in a query string's UTF-8, but in a caller's own) become U+FFFD.
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(PRINTABLE, 'must not contain control characters')
    .transform(toWellFormed),
  release: z
    .string()
    .min(1)
    .max(100)
    .regex(PRINTABLE, 'must not contain control characters')
    .transform(toWellFormed)
    .optional(),
  debug_id: z
    .string()
    .regex(/^[0-9A-Fa-f-]{1,128}$/, 'must be hex (dashes allowed)')
    .transform((v) => v.toUpperCase())
    .optional(),
});

/** What the file is, or a 400 that names the body as the field that is wrong. */
function describedOrRefused(...args: Parameters<typeof describeUpload>): ReturnType<typeof describeUpload> {
  try {
    return describeUpload(...args);
  } catch (err) {
    if (!(err instanceof UserInputError)) throw err;
    throw new UserInputError(`The request body (the file) is not a valid ${args[0]} file: ${err.message}`, {
      details: [{ parameter: 'body', reason: err.message }],
    });
  }
}

/**
 * POST /ingest/v1/debug-files?kind=&platform=&name=[&release=][&debug_id=] with the raw file as
 * the body, signed exactly like an ingest batch (X-Svc-Key, X-Svc-Timestamp, X-Svc-Signature over
 * the body as sent; a gzip body is stored inflated). 201 with the stored file's metadata.
 */
export function createDebugFilesRouter(deps: DebugFilesRouterDeps): Router {
  const router = express.Router();
  const uploads = deps.metrics.counter('core_debug_file_uploads_total', 'Debug file uploads by outcome', [
    'outcome',
  ]);
  router.post(
    '/ingest/v1/debug-files',
    readIngestBody(deps.maxBytes ?? DEFAULT_MAX_DEBUG_FILE_BYTES),
    async (req, res, next) => {
      try {
        const { sent, content: body } = ingestBodyOf(res);
        const projectId = await authenticateIngest(req.get.bind(req), sent, deps);
        const parsed = uploadQuery.safeParse(req.query);
        if (!parsed.success) {
          throw new UserInputError('Invalid debug file upload parameters.', {
            // An unknown key is named itself (zod reports it at the empty path of the whole query).
            details: parsed.error.issues.flatMap((i) =>
              i.code === 'unrecognized_keys'
                ? i.keys.map((key) => ({ parameter: key, reason: 'is not a parameter of this upload' }))
                : [{ parameter: i.path.join('.'), reason: i.message }],
            ),
          });
        }
        const q = parsed.data;
        if (!KIND_PLATFORMS[q.kind].includes(q.platform)) {
          throw new UserInputError(
            `A ${q.kind} file belongs to platform ${KIND_PLATFORMS[q.kind].join(' or ')}, not ${q.platform}.`,
          );
        }
        if (body.length === 0) throw new UserInputError('The request body (the file) is empty.');
        const upload = describedOrRefused(q.kind, q.name, body);
        // A source map's `file` comes from JSON, where `\ud800` is a lone surrogate.
        const described = { ...upload, module: toWellFormed(upload.module) };
        const release = q.release ?? '';
        const fileId = debugFileId(projectId, q.kind, q.platform, release, q.name);
        const uploadedAt = deps.now();
        let sha256: string;
        try {
          sha256 = await deps.files.put(body);
          await insertDebugFile(deps.ch, {
            project_id: projectId,
            file_id: fileId,
            kind: q.kind,
            platform: q.platform,
            name: q.name,
            release,
            debug_id: q.debug_id ?? described.debugId ?? '',
            module: described.module,
            readable: described.readable,
            sha256,
            size_bytes: body.length,
            uploaded_at_ms: uploadedAt,
          });
        } catch (err) {
          deps.logger.error({ err, project_id: projectId }, 'storing a debug file failed');
          throw new BackendUnavailableError('storage');
        }
        uploads.inc({ outcome: 'stored' });
        res.status(201).json({
          file_id: fileId,
          kind: q.kind,
          platform: q.platform,
          name: q.name,
          release: q.release ?? null,
          debug_id: q.debug_id ?? described.debugId,
          module: described.module === '' ? null : described.module,
          size_bytes: body.length,
          sha256,
          uploaded_at: new Date(uploadedAt).toISOString(),
        });
      } catch (err) {
        if (err instanceof UnauthorizedError) {
          uploads.inc({ outcome: 'unauthorized' });
          deps.logger.warn(
            { reason: err.reason, key_id: req.get('x-svc-key')?.slice(0, 128) },
            'debug file upload refused',
          );
        } else if (err instanceof UserInputError) {
          uploads.inc({ outcome: 'invalid_input' });
        }
        next(err);
      }
    },
  );
  return router;
}
