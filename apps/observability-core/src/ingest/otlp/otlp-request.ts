import { UserInputError } from '@svc/errors';
import { readJsonBody } from '../json/json-body';
import { MAX_RECORDS_PER_REQUEST, tooManyRecords } from '../request-limits';
import type { RecordType } from '../schemas';
import { type IngestSlicing, jsonSlicesOf } from '../work-slices';
import { logsFromOtlp } from './otlp-logs';
import { metricsFromOtlp } from './otlp-metrics';
import { logsRequest, metricsRequest, traceRequest } from './otlp-proto-schemas';
import { OtlpOutput } from './otlp-shape';
import { spansFromOtlp } from './otlp-traces';
import { decodeProtobuf, ProtobufError, type Schema, TooManyElementsError } from './protobuf-reader';

/** One OTLP signal: the path it is posted to, the records it becomes, how to read it. */
export interface OtlpSignal {
  path: '/v1/traces' | '/v1/logs' | '/v1/metrics';
  type: Extract<RecordType, 'spans' | 'logs' | 'metrics'>;
  schema: Schema;
  /** Maps a request into `out`, yielding after each record so that the caller can pause. */
  recordsOf(request: unknown, out: OtlpOutput): Generator<void>;
}

export const OTLP_SIGNALS: readonly OtlpSignal[] = [
  { path: '/v1/traces', type: 'spans', schema: traceRequest, recordsOf: spansFromOtlp },
  { path: '/v1/logs', type: 'logs', schema: logsRequest, recordsOf: logsFromOtlp },
  { path: '/v1/metrics', type: 'metrics', schema: metricsRequest, recordsOf: metricsFromOtlp },
];

export type OtlpEncoding = 'json' | 'protobuf';

/** The encoding a Content-Type names (OTLP/HTTP: application/json or application/x-protobuf). */
export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  throw new UserInputError(
    'OTLP/HTTP takes Content-Type application/x-protobuf (http/protobuf) or application/json (http/json).',
  );
}

/** The decoded protobuf request, or a 400 naming the field that is not what it should be. */
async function decoded(signal: OtlpSignal, body: Buffer, slicing: IngestSlicing): Promise<unknown> {
  try {
    return await decodeProtobuf(body, signal.schema, {
      slices: slicing.protobufBytes,
      maxCounted: MAX_RECORDS_PER_REQUEST,
    });
  } catch (err) {
    if (err instanceof TooManyElementsError)
      throw tooManyRecords(`more than ${MAX_RECORDS_PER_REQUEST} ${err.field}`);
    if (err instanceof ProtobufError)
      throw new UserInputError(`The request body is not an OTLP protobuf message: ${err.message}.`, {
        details: [{ path: err.path, reason: err.reason }],
      });
    throw err;
  }
}

/**
 * The records an OTLP request body stands for, in the ingest format (not yet validated), and
 * where each came from; every field of the wrong type is a 400 naming it. The work pauses between
 * slices (`slicing`), and a body that maps to more than MAX_RECORDS_PER_REQUEST records is 413
 * before it is all read.
 */
export async function otlpRecords(
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  body: Buffer,
  slicing: IngestSlicing,
): Promise<OtlpOutput> {
  const request =
    encoding === 'json'
      ? await readJsonBody(body, jsonSlicesOf(slicing))
      : await decoded(signal, body, slicing);
  const out = new OtlpOutput();
  for (const _ of signal.recordsOf(request, out)) if (slicing.records.add()) await slicing.records.pause();
  out.check();
  return out;
}

/**
 * The success answer in the request's encoding: an empty Export*ServiceResponse, which is `{}` in
 * JSON and zero bytes in protobuf.
 */
export const OTLP_SUCCESS: Record<OtlpEncoding, { contentType: string; body: string | Buffer }> = {
  json: { contentType: 'application/json', body: '{}' },
  protobuf: { contentType: 'application/x-protobuf', body: Buffer.alloc(0) },
};
