import {
  createExporter as createExporterWith,
  type Exporter,
  type ExporterOptions,
  signedHeaders,
} from '@svc/sdk-core';
import { signBody } from './sign';

/**
 * The Node exporter's batching, bounds and retries, sending from a page: signed with Web Crypto,
 * with fetch's keepalive (a batch posted as the page goes away still arrives), and with the key
 * named in the URL, because the CORS preflight that precedes it carries no header values and the
 * core allows origins per key (docs/ingest.md, "Browsers").
 */
export function createExporter(options: ExporterOptions): Exporter {
  return createExporterWith(options, {
    headers: signedHeaders(signBody),
    url: (target) => `${target.endpoint}/ingest/v1/batch?svc_key=${encodeURIComponent(target.keyId)}`,
    keepalive: true,
  });
}
