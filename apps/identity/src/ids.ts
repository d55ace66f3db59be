import { randomBytes, randomInt } from 'node:crypto';

const ALPHANUMERIC = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Readable, prefixed, unguessable ids such as `prj_k3v9...`: 20 characters of [0-9a-z]. */
export function newId(prefix: 'org' | 'usr' | 'prj' | 'tok' | 'key'): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 20; i++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
