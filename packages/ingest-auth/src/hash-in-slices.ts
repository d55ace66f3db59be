import { setImmediate as yieldToLoop } from 'node:timers/promises';

// Hashing a 10 MB ingest body (or a 20 MB recall upload) at once holds the event loop for
// 10-20 ms, and a request hashes its body more than once (the signature, the replay guard's
// memory of it). A megabyte is hashed in about a millisecond and a half: between megabytes the
// loop turns.

export const HASH_SLICE_BYTES = 1 << 20;

/** Feeds `data` to `hash` a slice at a time, letting the event loop turn between slices. */
export async function updateInSlices(
  hash: { update(data: Uint8Array): unknown },
  data: Uint8Array,
  sliceBytes = HASH_SLICE_BYTES,
): Promise<number> {
  let pauses = 0;
  for (let at = 0; at < data.length; at += sliceBytes) {
    if (at > 0) {
      await yieldToLoop();
      pauses++;
    }
    hash.update(data.subarray(at, at + sliceBytes));
  }
  return pauses;
}
