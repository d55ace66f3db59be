import { Gzip } from 'fflate';
import type { Compression } from '../platform';

/** Compressed a slice at a time, the JS thread free between slices (a frame is 16 ms). */
const SLICE_BYTES = 64 * 1024;
const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * gzip with fflate (pure JavaScript; its asynchronous API needs Web Workers, which React Native
 * has not): the streaming compressor fed 64 KiB at a time, yielding between slices so a 1 MiB log
 * file does not hold the UI for its whole compression.
 */
export const fflateCompression: Compression = {
  async gzip(data) {
    const parts: Uint8Array[] = [];
    const stream = new Gzip({ level: 6 }, (chunk) => {
      parts.push(chunk);
    });
    for (let at = 0; at < data.length; at += SLICE_BYTES) {
      stream.push(data.subarray(at, at + SLICE_BYTES));
      await nextTick();
    }
    stream.push(new Uint8Array(0), true);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  },
};
