// Consistent head sampling: the decision is a function of the trace id alone, the
// same in every SDK, so each service keeps or drops a whole trace. The rule and its vectors are
// shared with the Web and Go SDKs (fixtures/sampling.json). No Node APIs: this file runs in browsers.

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TWO_POW_32 = 2 ** 32;
// Printable ASCII: each character is its own UTF-8 byte.
const PRINTABLE_ASCII = /^[ -~]*$/;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  // Math.imul keeps the product in 32 bits; >>> 0 makes it unsigned again.
  const step = (byte: number) => {
    hash = Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
  };
  // A trace id is printable ASCII: no encoder on the hot path.
  if (PRINTABLE_ASCII.test(text)) for (let i = 0; i < text.length; i++) step(text.charCodeAt(i));
  else for (const byte of new TextEncoder().encode(text)) step(byte);
  return hash;
}

/**
 * A sampling rate as the option takes it: a number in [0, 1]; 0 or absent means every trace is
 * kept. Anything else is a configuration error, reported at once.
 */
export function checkSampleRate(rate: number | undefined): number {
  if (rate === undefined) return 0;
  if (typeof rate !== 'number' || Number.isNaN(rate) || rate < 0 || rate > 1)
    // Short: every character of it is in the web bundle. What 0 means is the option's own doc.
    throw new RangeError(`sampleRate must be a number in [0, 1], got ${rate}`);
  return rate;
}

/**
 * Whether a trace is kept at `rate`: always for 0, absent or >= 1, else iff
 * fnv1a32(trace id as 32 lowercase hex) / 2^32 < rate. A span that ends with status error is
 * reported even when its trace is not kept (errors are never sampled away): that is the exporter's rule, not this one.
 */
export function isSampled(traceId: string, rate: number | undefined): boolean {
  if (rate === undefined || rate === 0 || rate >= 1) return true;
  return fnv1a32(traceId.toLowerCase()) / TWO_POW_32 < rate;
}
