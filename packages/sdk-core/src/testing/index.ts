// What other packages' tests use of sdk-core: an exporter that keeps what it is given, and the
// signing as the core checks it (node:crypto).
export { collectingExporter } from './collecting-exporter';
export { hasIngestSignature, nodeHmacHex } from './signed-ingest';
