export { parseBearer } from './bearer';
export {
  controlledCapability,
  type IntrospectionResponse,
  introspectionResponseSchema,
  MCP_SCOPE,
  principalFromIntrospection,
} from './introspection';
export {
  base62Checksum,
  checkOAuthAccessTokenFormat,
  checkTokenFormat,
  generateToken,
  hashToken,
  TOKEN_LENGTH,
  TOKEN_PREFIX,
  tokenFingerprint,
} from './token-format';
