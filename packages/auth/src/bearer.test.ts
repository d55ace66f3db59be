import { randomBytes } from 'node:crypto';
import { UnauthorizedError } from '@svc/errors';
import { parseBearer } from './bearer';
import { generateToken } from './token-format';

function reasonOf(header: string | undefined): string {
  try {
    parseBearer(header);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthorizedError);
    return (err as UnauthorizedError).reason;
  }
  throw new Error('expected parseBearer to throw');
}

describe('parseBearer', () => {
  const token = generateToken();

  it('returns the token of a well-formed bearer header, scheme case-insensitive', () => {
    expect(parseBearer(`Bearer ${token}`)).toBe(token);
    expect(parseBearer(`bearer ${token}`)).toBe(token);
    expect(parseBearer(`  BEARER   ${token}  `)).toBe(token);
  });

  it('names the reason of each refusal', () => {
    expect(reasonOf(undefined)).toBe('missing_authorization');
    expect(reasonOf('')).toBe('missing_authorization');
    expect(reasonOf(`Basic ${token}`)).toBe('wrong_scheme');
    expect(reasonOf(token)).toBe('wrong_scheme');
    expect(reasonOf('Bearer')).toBe('malformed_token');
    expect(reasonOf('Bearer svc_pat_short')).toBe('malformed_token');
    const lastChanged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(reasonOf(`Bearer ${lastChanged}`)).toBe('malformed_token');
    expect(reasonOf(`Bearer ${token} extra`)).toBe('malformed_token');
  });

  // What identity's authorization server hands MCP clients that sign in: 256 random bits, base64url.
  it('takes an OAuth access token (43 URL-safe characters) and nothing near it', () => {
    const oauth = randomBytes(32).toString('base64url');
    expect(oauth).toHaveLength(43);
    expect(parseBearer(`Bearer ${oauth}`)).toBe(oauth);
    expect(reasonOf(`Bearer ${oauth.slice(1)}`)).toBe('malformed_token');
    expect(reasonOf(`Bearer ${oauth}A`)).toBe('malformed_token');
    expect(reasonOf(`Bearer ${oauth.slice(1)}.`)).toBe('malformed_token');
  });
});
