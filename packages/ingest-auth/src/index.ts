export {
  authenticateIngest,
  authenticateIngestKey,
  INGEST_KEY_HEADER,
  type IngestAuthDeps,
  IngestAuthError,
  IngestKeyAuthError,
} from './authenticate';
export { HASH_SLICE_BYTES, updateInSlices } from './hash-in-slices';
export {
  createHttpIngestKeyResolver,
  type HttpIngestKeyResolverOptions,
  type IngestKey,
  type IngestKeyResolver,
} from './key-resolver';
export {
  type AuthenticatedRequest,
  authenticateSignedRequest,
  NONCE_HEADER,
  RequestAuthError,
  requestSignatureMatches,
  type SignedRequestParts,
  signRequest,
} from './request-signature';
export {
  MAX_CLOCK_SKEW_SECONDS,
  signatureMatches,
  signIngestBody,
  signIngestHeaders,
  timestampFresh,
} from './signature';
