import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { PayloadTooLargeError, UserInputError } from '@svc/errors';
import type { Request, RequestHandler, Response } from 'express';

// An ingest request's body twice: the bytes as sent, which the signature covers (docs/ingest.md,
// "Authentication": what an HTTP client can sign is what it sends), and its content, inflated
// per Content-Encoding off the event loop (zlib runs on the thread pool). Both are bounded by the
// same limit: beyond it, 413.

export interface IngestBody {
  /** The bytes as they came over the wire. */
  sent: Buffer;
  /** The same bytes inflated (`sent` itself for identity). */
  content: Buffer;
}

const INFLATE = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
} as const;

const tooLarge = (limit: number) =>
  new PayloadTooLargeError(`The request body is larger than ${limit} bytes.`, {
    details: { max_bytes: limit },
  });

/** Reads what is left of the request so that the connection stays usable for the answer. */
function drain(req: Request): void {
  req.removeAllListeners('data');
  req.resume();
}

function readSent(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) {
      drain(req);
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        drain(req);
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', () => reject(new UserInputError('The request body could not be read.')));
  });
}

async function inflated(sent: Buffer, encoding: string, limit: number): Promise<Buffer> {
  if (encoding === 'identity') return sent;
  const inflate = INFLATE[encoding as keyof typeof INFLATE];
  if (!inflate)
    throw new UserInputError(
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported: send identity, gzip, deflate or br.`,
    );
  try {
    return await inflate(sent, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw new UserInputError(`The request body is not valid ${encoding}: check its Content-Encoding.`);
  }
}

/** Reads the body (as sent, and inflated) into `res.locals`; `ingestBodyOf` gives it to the route. */
export function readIngestBody(limit: number): RequestHandler {
  return async (req, res, next) => {
    try {
      const sent = await readSent(req, limit);
      const encoding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase() || 'identity';
      res.locals.ingestBody = { sent, content: await inflated(sent, encoding, limit) } satisfies IngestBody;
      next();
    } catch (err) {
      next(err);
    }
  };
}

export function ingestBodyOf(res: Response): IngestBody {
  return res.locals.ingestBody as IngestBody;
}
