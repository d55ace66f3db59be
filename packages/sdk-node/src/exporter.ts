import {
  createExporter as createExporterWith,
  type Exporter,
  type ExporterOptions,
  ingestTransport,
} from '@svc/sdk-core';
import { nodeSend } from './send';
import { signBody } from './sign';

/**
 * Batches spans and logs and posts them, signed with the project's ingest key (node:crypto), to the
 * core's `/ingest/v1/batch` over node:http(s): bounded queue, retries with backoff, never throws
 * into the app.
 */
export function createExporter(options: ExporterOptions): Exporter {
  return createExporterWith(options, ingestTransport(signBody, { send: nodeSend }));
}
