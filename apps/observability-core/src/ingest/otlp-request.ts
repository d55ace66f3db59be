import { UserInputError } from '@svc/tool-kit';
import { logsFromOtlp } from './otlp-logs';
import { metricsFromOtlp } from './otlp-metrics';
import { logsRequest, metricsRequest, traceRequest } from './otlp-proto-schemas';
import { spansFromOtlp } from './otlp-traces';
import { decodeProtobuf, ProtobufError, type Schema } from './protobuf-reader';
import type { RecordType } from './schemas';
import { parseJsonBody } from './validate-batch';

/** One OTLP signal: the path it is posted to, the records it becomes, how to read it. */
export interface OtlpSignal {
  path: '/v1/traces' | '/v1/logs' | '/v1/metrics';
  type: Extract<RecordType, 'spans' | 'logs' | 'metrics'>;
  schema: Schema;
  recordsOf(request: unknown): unknown[];
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

/** The records an OTLP request body stands for, in the ingest format (not yet validated). */
export function otlpRecords(signal: OtlpSignal, encoding: OtlpEncoding, body: Buffer): unknown[] {
  if (encoding === 'json') return signal.recordsOf(parseJsonBody(body));
  try {
    return signal.recordsOf(decodeProtobuf(body, signal.schema));
  } catch (err) {
    if (err instanceof ProtobufError)
      throw new UserInputError(`The request body is not an OTLP protobuf message: ${err.message}.`);
    throw err;
  }
}

/**
 * The success answer in the request's encoding: an empty Export*ServiceResponse, which is `{}` in
 * JSON and zero bytes in protobuf.
 */
export const OTLP_SUCCESS: Record<OtlpEncoding, { contentType: string; body: string | Buffer }> = {
  json: { contentType: 'application/json', body: '{}' },
  protobuf: { contentType: 'application/x-protobuf', body: Buffer.alloc(0) },
};
