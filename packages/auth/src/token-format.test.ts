import fc from 'fast-check';
import {
  base62Checksum,
  checkTokenFormat,
  generateToken,
  hashToken,
  TOKEN_LENGTH,
  tokenFingerprint,
} from './token-format';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Reference CRC32 (IEEE, reflected, poly 0xEDB88320), bit by bit: independent of node:zlib.
function referenceCrc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function referenceBase62(value: number): string {
  const digits: string[] = [];
  let v = value;
  while (v > 0) {
    digits.unshift(ALPHABET[v % 62]!);
    v = Math.floor(v / 62);
  }
  return digits.join('').padStart(6, '0');
}

const body30 = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 30, maxLength: 30 });

describe('token format', () => {
  it('matches the standard CRC32 check value', () => {
    expect(referenceCrc32('123456789')).toBe(0xcbf43926);
    expect(base62Checksum(0)).toBe('000000');
    expect(base62Checksum(0xffffffff)).toBe(referenceBase62(0xffffffff));
  });

  it('generates 44-character tokens with the prefix that pass the format check', () => {
    fc.assert(
      fc.property(fc.constant(null), () => {
        const token = generateToken();
        expect(token).toHaveLength(44);
        expect(TOKEN_LENGTH).toBe(44);
        expect(token).toMatch(/^svc_pat_[0-9A-Za-z]{36}$/);
        expect(token.slice(38)).toBe(referenceBase62(referenceCrc32(token.slice(0, 38))));
        expect(checkTokenFormat(token)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts any token assembled by the scheme independently', () => {
    fc.assert(
      fc.property(body30, (body) => {
        const head = `svc_pat_${body}`;
        expect(checkTokenFormat(head + referenceBase62(referenceCrc32(head)))).toBe(true);
      }),
    );
  });

  it('rejects every single-character change of a valid token', () => {
    const anyChar = fc.oneof(
      fc.constantFrom(...ALPHABET, '_', '-', ' ', '=', '/'),
      fc.string({ minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 43 }), anyChar, (index, replacement) => {
        const token = generateToken();
        fc.pre(token[index] !== replacement);
        const changed = token.slice(0, index) + replacement + token.slice(index + 1);
        expect(checkTokenFormat(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects wrong lengths, prefixes and non-strings', () => {
    const token = generateToken();
    expect(checkTokenFormat(token.slice(0, 43))).toBe(false);
    expect(checkTokenFormat(`${token}0`)).toBe(false);
    expect(checkTokenFormat(`ghp_${token.slice(4)}`)).toBe(false);
    expect(checkTokenFormat('')).toBe(false);
    expect(checkTokenFormat(undefined as unknown as string)).toBe(false);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('fingerprints deterministically without revealing the token or its stored hash', () => {
    fc.assert(
      fc.property(fc.constant(null), () => {
        const a = generateToken();
        const b = generateToken();
        const fp = tokenFingerprint(a);
        expect(fp).toBe(tokenFingerprint(a));
        expect(fp).not.toBe(tokenFingerprint(b));
        expect(fp).toMatch(/^fp_[0-9a-f]{16}$/);
        expect(hashToken(a)).not.toContain(fp.slice(3));
        expect(fp).not.toContain(a.slice(8, 14));
      }),
      { numRuns: 100 },
    );
  });
});
