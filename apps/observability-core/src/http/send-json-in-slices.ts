import type { Response } from 'express';

/** Main-thread time one slice of serialization may take before other work gets a turn. */
const SLICE_MS = 2;
/** Text gathered before it is encoded to bytes (keeps each encode short, too). */
const CHUNK_CHARS = 64 * 1024;
/**
 * The answer and its top-level members are written piece by piece (a list's items, a table's
 * rows: where a large answer's bulk is); anything deeper goes through one JSON.stringify.
 */
const MAX_SPLIT_DEPTH = 1;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Writes `value` as the JSON that JSON.stringify makes of it, serialized in slices of at most ~2 ms
 * of main-thread time with the event loop given a turn between them (docs/decisions.md, "Fair
 * sharing of the core"). A 1.6 MB answer costs ~30 ms to serialize and encode; in one piece it
 * held every other project's query completions and requests behind it. The length is known before
 * the first byte goes out, so the gateway still sees Content-Length (its answer budget and answer
 * workers go by it).
 */
export async function sendJsonInSlices(res: Response, status: number, value: unknown): Promise<void> {
  const chunks: Buffer[] = [];
  let text = '';
  let sliceStart = performance.now();
  const emit = (piece: string) => {
    text += piece;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = '';
    }
  };
  /** Between pieces: the event loop's turn once this slice has used its time. */
  const pause = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await yieldToEventLoop();
    sliceStart = performance.now();
  };
  const write = async (node: unknown, depth: number): Promise<void> => {
    if (depth > MAX_SPLIT_DEPTH || !isPlainContainer(node)) {
      // undefined, functions and symbols are null in an array (the caller's case) like JSON.stringify.
      emit(JSON.stringify(node) ?? 'null');
      return;
    }
    if (Array.isArray(node)) {
      emit('[');
      for (let i = 0; i < node.length; i++) {
        if (i > 0) emit(',');
        await write(node[i], depth + 1);
        await pause();
      }
      emit(']');
      return;
    }
    emit('{');
    let first = true;
    for (const key of Object.keys(node)) {
      const member = node[key];
      // Members JSON.stringify leaves out.
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      await write(member, depth + 1);
      await pause();
    }
    emit('}');
  };
  await write(value, 0);
  if (text) chunks.push(Buffer.from(text, 'utf8'));
  if (res.destroyed) return;
  const length = chunks.reduce((sum, c) => sum + c.length, 0);
  res.status(status);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', String(length));
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
  res.uncork();
}
