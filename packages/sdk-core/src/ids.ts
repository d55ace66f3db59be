// Ids come from a pool of random bytes refilled 4 KB at a time: one call into the system's random
// source for about 170 spans instead of two per span, which matters in a middleware on every
// request. Web Crypto's getRandomValues exists in browsers and in Node, so one file serves both.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function nonZeroHex(bytes: number): string {
  for (;;) {
    if (offset + bytes > POOL_BYTES) {
      globalThis.crypto.getRandomValues(pool);
      offset = 0;
    }
    let hex = '';
    let any = 0;
    for (let i = offset; i < offset + bytes; i++) {
      hex += HEX[pool[i] as number];
      any |= pool[i] as number;
    }
    offset += bytes;
    // All-zero ids are invalid in W3C Trace Context.
    if (any !== 0) return hex;
  }
}

/** A new trace id: 32 lowercase hex characters, never all zero. */
export const newTraceId = (): string => nonZeroHex(16);

/** A new span id: 16 lowercase hex characters, never all zero. */
export const newSpanId = (): string => nonZeroHex(8);
