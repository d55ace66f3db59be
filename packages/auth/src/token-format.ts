import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Personal access tokens follow GitHub's scheme (docs/internal-api.md, "Token format"):
// `svc_pat_` + 30 random base62 characters + 6 base62 characters of the CRC32 of everything
// before them. The checksum lets the gateway reject typos and garbage without asking identity.
export const TOKEN_PREFIX = 'svc_pat_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** Fixed-width base62 of an unsigned 32-bit value, most significant digit first. */
export function base62Checksum(value: number): string {
  let rest = value >>> 0;
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

const checksumOf = (head: string) => base62Checksum(crc32(head));

export function generateToken(): string {
  let random = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  const head = TOKEN_PREFIX + random;
  return head + checksumOf(head);
}

/** Offline check: prefix, length, alphabet and checksum. Says nothing about validity. */
export function checkTokenFormat(token: string): boolean {
  if (typeof token !== 'string' || token.length !== TOKEN_LENGTH || !BODY_PATTERN.test(token)) return false;
  const head = token.slice(0, TOKEN_LENGTH - CHECKSUM_LENGTH);
  return token.slice(TOKEN_LENGTH - CHECKSUM_LENGTH) === checksumOf(head);
}

/**
 * An access token of identity's OAuth authorization server (MCP clients that sign in): 43 URL-safe
 * characters, 256 random bits, no checksum of its own. Never the shape of a personal access token
 * (44 characters), so the two cannot be mistaken for each other.
 */
const OAUTH_ACCESS_TOKEN_PATTERN = /^[0-9A-Za-z_-]{43}$/;

export function checkOAuthAccessTokenFormat(token: string): boolean {
  return typeof token === 'string' && OAUTH_ACCESS_TOKEN_PATTERN.test(token);
}

/** What identity stores and looks tokens up by: SHA-256 hex of the whole token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Short id of a token for security logs: lets operators correlate failed attempts without the
 * token (or its stored hash) ever appearing in a log. Domain-separated from `hashToken`.
 */
export function tokenFingerprint(token: string): string {
  return (
    'fp_' + createHash('sha256').update(`svc-token-fingerprint:${token}`, 'utf8').digest('hex').slice(0, 16)
  );
}
