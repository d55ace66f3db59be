import { UnauthorizedError } from '@svc/errors';
import { checkOAuthAccessTokenFormat, checkTokenFormat } from './token-format';

/**
 * Extracts the personal access token (or an OAuth access token) from an Authorization header. Rejects, with a reason for
 * logs, a missing header, another scheme, or a value that fails the offline format check.
 */
export function parseBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw new UnauthorizedError('missing_authorization');
  const [scheme, token, ...rest] = header.trim().split(/\s+/);
  if (scheme!.toLowerCase() !== 'bearer') throw new UnauthorizedError('wrong_scheme');
  if (
    token === undefined ||
    rest.length > 0 ||
    !(checkTokenFormat(token) || checkOAuthAccessTokenFormat(token))
  ) {
    throw new UnauthorizedError('malformed_token');
  }
  return token;
}
