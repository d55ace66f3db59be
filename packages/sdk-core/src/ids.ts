// Ids are cut from a pool of random hex: 4 KB of random bytes at a time, written out as 8192 hex
// characters once, so an id is one slice of that text (one small object) instead of a string
// built a character pair at a time (a dozen or more), and one call into the system's random
// source serves about 170 spans, which matters in a middleware on every request. Web Crypto's
// getRandomValues exists in browsers and in Node, so one file serves both (and React Native, with
// the react-native-get-random-values polyfill the mobile SDK imports).
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
// The pool's hex digits as ASCII bytes, so its text is one native decode.
const DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const ascii = new Uint8Array(POOL_BYTES * 2);
// Hermes (React Native) has a TextDecoder only from React Native 0.85: without one the text is
// built 1 KB at a time with String.fromCharCode.
const decoder = typeof TextDecoder === 'function' ? new TextDecoder('latin1') : undefined;
let text = '';

function asciiText(bytes: Uint8Array): string {
  const decoded = decoder?.decode(bytes);
  if (typeof decoded === 'string' && decoded.length === bytes.length) return decoded;
  let out = '';
  for (let i = 0; i < bytes.length; i += 1024)
    out += String.fromCharCode(...(bytes.subarray(i, i + 1024) as unknown as number[]));
  return out;
}
let offset = 0;

function refill(): void {
  globalThis.crypto.getRandomValues(pool);
  for (let i = 0; i < POOL_BYTES; i++) {
    const byte = pool[i] as number;
    ascii[2 * i] = DIGITS[byte >> 4] as number;
    ascii[2 * i + 1] = DIGITS[byte & 15] as number;
  }
  text = asciiText(ascii);
  offset = 0;
}

const ZEROS = { 16: '0'.repeat(16), 32: '0'.repeat(32) } as const;

function nonZeroHex(length: 16 | 32): string {
  for (;;) {
    if (offset + length > text.length) refill();
    const hex = text.slice(offset, offset + length);
    offset += length;
    // All-zero ids are invalid in W3C Trace Context.
    if (hex !== ZEROS[length]) return hex;
  }
}

/** A new trace id: 32 lowercase hex characters, never all zero. */
export const newTraceId = (): string => nonZeroHex(32);

/** A new span id: 16 lowercase hex characters, never all zero. */
export const newSpanId = (): string => nonZeroHex(16);
