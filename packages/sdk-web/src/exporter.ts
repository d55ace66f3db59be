import {
  type BatchExporter,
  createExporter as createExporterWith,
  type ExporterOptions,
  ingestTransport,
} from '@svc/sdk-core';
import { signBody } from './sign';

/**
 * The Node exporter's batching, bounds and retries, sending from a page: signed with Web Crypto,
 * with fetch's keepalive (a batch posted as the page goes away still arrives), and with the key
 * named in the URL for the CORS preflight (docs/ingest.md, "Browsers").
 */
export function createExporter(options: ExporterOptions): BatchExporter {
  return createExporterWith(options, ingestTransport(signBody, { browser: true }));
}
