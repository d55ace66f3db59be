export { createHttpAuditSink } from './audit-sink';
export {
  createIdentityClient,
  fetchOrgCapabilities,
  type IdentityClient,
  type IntrospectOptions,
} from './identity-client';
