import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { UserInputError } from '@svc/errors';
import { toWellFormed } from '@svc/tool-kit';
import { MAX_JSON_DEPTH } from '../value-bounds';
import type { WorkSlices } from '../work-slices';
import { formatPath, type PathSegment } from './json-path';
import { parseJsonInSlices } from './json-slices';

// A JSON request body as every JSON ingest route reads it (signed batches, OTLP/HTTP JSON, the
// internal route): parsed in slices (json-slices.ts), then walked once, without recursion, in
// slices (work-slices.ts):
// - nesting deeper than MAX_JSON_DEPTH is refused with the path where it went too deep (the
//   schemas behind it may recurse; they never see more than this);
// - a number that JSON.parse made infinite (a literal beyond Float64, `1e400`) is refused: it
//   would be stored as null or fail the engine;
// - strings and keys that are not well-formed UTF-16 (a lone surrogate written as `\ud800`) get
//   U+FFFD in place of each lone surrogate, as invalid UTF-8 already does when the bytes are
//   decoded: the engine refuses such strings, and nothing downstream can show them.

interface Container {
  value: Record<string, unknown> | unknown[];
  depth: number;
  parent: Container | undefined;
  segment: PathSegment | undefined;
}

function pathOf(container: Container | undefined, last?: PathSegment): string {
  const segments: PathSegment[] = last === undefined ? [] : [last];
  for (let c = container; c?.segment !== undefined; c = c.parent) segments.push(c.segment);
  return formatPath(segments.reverse()) || '(the body)';
}

function refuse(path: string, reason: string): never {
  throw new UserInputError(`The request body is invalid at ${path}: ${reason}.`, {
    details: [{ path, reason }],
  });
}

/** Makes the keys of `object` well-formed (rare: a new key is written, the old one deleted). */
function wellFormedKeys(object: Record<string, unknown>): void {
  for (const key of Object.keys(object)) {
    const fixed = toWellFormed(key);
    if (fixed === key) continue;
    const value = object[key];
    delete object[key];
    object[fixed] = value;
  }
}

/**
 * Walks `value` (a parsed JSON body) as described above, changing strings in place; pauses
 * between slices of `slices.every` values when given.
 */
export async function checkJsonValue(value: unknown, slices?: WorkSlices): Promise<unknown> {
  if (typeof value === 'string') return toWellFormed(value);
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value)) refuse('(the body)', 'not a finite number');
    return value;
  }
  const stack: Container[] = [
    { value: value as Container['value'], depth: 1, parent: undefined, segment: undefined },
  ];
  while (stack.length > 0) {
    const container = stack.pop()!;
    if (container.depth > MAX_JSON_DEPTH)
      refuse(pathOf(container), `nested more than ${MAX_JSON_DEPTH} levels deep`);
    const node = container.value;
    const isArray = Array.isArray(node);
    if (!isArray) wellFormedKeys(node);
    const keys: PathSegment[] | undefined = isArray ? undefined : Object.keys(node);
    const length = isArray ? node.length : keys!.length;
    for (let i = 0; i < length; i++) {
      const key = isArray ? i : (keys![i] as string);
      const child = (node as Record<PathSegment, unknown>)[key];
      if (typeof child === 'string') {
        const fixed = toWellFormed(child);
        if (fixed !== child) (node as Record<PathSegment, unknown>)[key] = fixed;
      } else if (typeof child === 'number') {
        if (!Number.isFinite(child)) refuse(pathOf(container, key), 'not a finite number (beyond ±1.8e308)');
      } else if (typeof child === 'object' && child !== null) {
        stack.push({
          value: child as Container['value'],
          depth: container.depth + 1,
          parent: container,
          segment: key,
        });
      }
      if (slices?.add()) await slices.pause();
    }
  }
  return value;
}

/** A JSON body parsed and checked (above); UserInputError when it is not JSON or fails a check. */
export async function readJsonBody(
  body: Buffer,
  slices: { chars?: WorkSlices; values?: WorkSlices } = {},
): Promise<unknown> {
  return checkJsonValue(await parseJsonInSlices(await decodeUtf8(body), slices.chars), slices.values);
}

const DECODE_SLICE_BYTES = 1 << 20;

/**
 * The body as text, a megabyte at a time (10 MB at once held the event loop for 10-15 ms): what
 * `toString('utf8')` gives, invalid bytes as U+FFFD, a character split between slices kept whole.
 */
export async function decodeUtf8(body: Buffer): Promise<string> {
  if (body.length <= DECODE_SLICE_BYTES) return body.toString('utf8');
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let text = '';
  for (let at = 0; at < body.length; at += DECODE_SLICE_BYTES) {
    if (at > 0) await yieldToLoop();
    text += decoder.decode(body.subarray(at, at + DECODE_SLICE_BYTES), { stream: true });
  }
  return text + decoder.decode();
}
