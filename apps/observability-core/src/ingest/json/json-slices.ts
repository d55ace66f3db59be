import { UserInputError } from '@svc/errors';
import { MAX_JSON_DEPTH } from '../value-bounds';
import type { WorkSlices } from '../work-slices';
import { formatPath, type PathSegment } from './json-path';

// JSON.parse of a whole 10 MB body holds the event loop for 25-70 ms, and 2 MB of `[[[[...` for
// most of a second (its nesting, not its size). So a body is parsed in slices:
// 1. one scan of its characters, paused between slices, checks that it nests at most
//    MAX_JSON_DEPTH deep (refused with the path where it went deeper, before any parse) and notes
//    where each container longer than LEAF_CHARS ends and where its own commas are;
// 2. a value of at most LEAF_CHARS characters is handed to JSON.parse at once (a few ms at most,
//    its nesting now bounded); a larger array or object is split into its members at the commas
//    the scan noted and each member parsed the same way; the characters parsed count in the same
//    slices as the scan's, so a body's leaves are parsed with pauses between them too.
// The result is JSON.parse's (the same values, the last of duplicate keys, "__proto__" an own
// key); anything JSON.parse refuses is refused.

/** A value this short is parsed by JSON.parse at once. */
export const LEAF_CHARS = 128 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const notJson = () => new UserInputError('The request body is not valid JSON.');

function tooDeep(path: string): UserInputError {
  const reason = `nested more than ${MAX_JSON_DEPTH} levels deep`;
  return new UserInputError(`The request body is invalid at ${path}: ${reason}.`, {
    details: [{ path, reason }],
  });
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The end of the string literal that starts at `start` (the index after its closing quote). */
function stringEnd(text: string, start: number, end: number): number {
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  throw notJson();
}

/**
 * The path of the container that opens at `position`, read again from the start (only when a body
 * is refused for its nesting): array indices, and object keys as written.
 */
function pathAt(text: string, position: number): string {
  const frames: { array: boolean; index: number; key: PathSegment | undefined; expectKey: boolean }[] = [];
  for (let i = 0; i < position; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === QUOTE) {
      const end = stringEnd(text, i, text.length);
      if (top && !top.array && top.expectKey) {
        try {
          top.key = JSON.parse(text.slice(i, end)) as string;
        } catch {
          top.key = '?';
        }
        top.expectKey = false;
      }
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      frames.push({ array: c === OPEN_BRACKET, index: 0, key: undefined, expectKey: c === OPEN_BRACE });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop();
    } else if (c === COMMA && top) {
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  return formatPath(frames.map((f) => (f.array ? f.index : (f.key ?? '?')))) || '(the body)';
}

/** A container longer than a leaf: where it ends, and its own commas (the splits between its members). */
interface LargeContainer {
  /** The index after its closing bracket. */
  end: number;
  commas: number[];
}

/**
 * The index of the quote closing the string whose characters start at `from` (-1 when none does),
 * `backslash` being the first backslash at or after `from` or -1.
 */
function stringClose(text: string, from: number, backslash: number): number {
  let at = from;
  let next = backslash;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1 || next === -1 || next > quote) return quote;
    // An escape comes first: skip it and the character it escapes.
    at = next + 2;
    next = text.indexOf('\\', at);
  }
}

/**
 * Step 1, one scan of the body's characters (strings and escapes skipped): the body nests at most
 * MAX_JSON_DEPTH deep, and every container longer than `leafChars` is indexed by where it opens,
 * with where it ends and its own commas, so that step 2 splits it without reading it again (a
 * scan per level of an OTLP body's six large levels was a fifth of the core's ingest CPU).
 */
async function scanBody(
  text: string,
  slices: WorkSlices | undefined,
  leafChars: number,
): Promise<Map<number, LargeContainer>> {
  const large = new Map<number, LargeContainer>();
  // The open containers, innermost last: where each opened and where its commas start in `commas`
  // (those of a container that closes short are dropped; a large one's are moved to `large`).
  const opened: number[] = [];
  const firstComma: number[] = [];
  const commas: number[] = [];
  let depth = 0;
  let i = 0;
  // Strings are most of a body: their ends are found with indexOf (native) rather than a character
  // at a time, `backslash` being the next backslash at or after the scan (-1: none left).
  let backslash = text.indexOf('\\');
  while (i < text.length) {
    const from = i;
    const to = Math.min(text.length, i + (slices?.room() ?? text.length));
    for (; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        // A backslash outside a string (not JSON) is passed by: the next one is looked for.
        if (backslash !== -1 && backslash < i) backslash = text.indexOf('\\', i);
        i = stringClose(text, i + 1, backslash);
        if (i === -1) {
          // Unterminated: nothing after it is structure (JSON.parse refuses the body).
          i = text.length;
          break;
        }
        if (backslash !== -1 && backslash < i) backslash = text.indexOf('\\', i);
      } else if (c === COMMA) commas.push(i);
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > MAX_JSON_DEPTH) throw tooDeep(pathAt(text, i));
        opened.push(i);
        firstComma.push(commas.length);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        const start = opened.pop();
        if (start === undefined) continue;
        const own = firstComma.pop()!;
        if (i + 1 - start > leafChars) large.set(start, { end: i + 1, commas: commas.slice(own) });
        commas.length = own;
      }
    }
    if (slices?.add(i - from)) await slices.pause();
  }
  return large;
}

function leaf(text: string, start: number, end: number): unknown {
  try {
    return JSON.parse(text.slice(start, end));
  } catch {
    throw notJson();
  }
}

/**
 * The members of the container at [start, end) (its brackets included) split at `commas`, its
 * own, as [start, end) ranges without surrounding whitespace; refuses an empty member.
 */
function membersAt(text: string, start: number, end: number, commas: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  let memberStart = start + 1;
  for (const comma of commas) {
    out.push(trimmed(text, memberStart, comma));
    memberStart = comma + 1;
  }
  const last = trimmed(text, memberStart, end - 1);
  if (last[0] === last[1]) {
    if (out.length > 0) throw notJson();
    return out;
  }
  out.push(last);
  for (const [s, e] of out) if (s === e) throw notJson();
  return out;
}

function trimmed(text: string, start: number, end: number): [number, number] {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  return [s, e];
}

interface Parse {
  text: string;
  large: Map<number, LargeContainer>;
  slices: WorkSlices | undefined;
  leafChars: number;
}

/** A leaf parsed, its characters counted in the slices (a pause once one is full). */
async function leafInSlices(parse: Parse, start: number, end: number): Promise<unknown> {
  const value = leaf(parse.text, start, end);
  if (parse.slices?.add(end - start)) await parse.slices.pause();
  return value;
}

/** The value at [start, end), trimmed: a leaf at once, a large container member by member. */
async function valueAt(parse: Parse, start: number, end: number): Promise<unknown> {
  const { text } = parse;
  if (end - start <= parse.leafChars) return leafInSlices(parse, start, end);
  const open = text.charCodeAt(start);
  const close = text.charCodeAt(end - 1);
  if ((open === OPEN_BRACKET && close === CLOSE_BRACKET) || (open === OPEN_BRACE && close === CLOSE_BRACE)) {
    // Not indexed as ending here: its brackets do not match up (or a string runs past it), and
    // JSON.parse would refuse it too.
    const container = parse.large.get(start);
    if (container?.end !== end) throw notJson();
    const members = membersAt(text, start, end, container.commas);
    if (open === OPEN_BRACKET) {
      const out: unknown[] = [];
      for (const [s, e] of members) out.push(await valueAt(parse, s, e));
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [s, e] of members) {
      if (text.charCodeAt(s) !== QUOTE) throw notJson();
      const keyEnd = stringEnd(text, s, e);
      const [colon] = trimmed(text, keyEnd, e);
      if (text.charCodeAt(colon) !== COLON) throw notJson();
      const key = leaf(text, s, keyEnd) as string;
      const [vs, ve] = trimmed(text, colon + 1, e);
      if (vs === ve) throw notJson();
      // As JSON.parse makes it: an own property, "__proto__" included (never the prototype).
      Object.defineProperty(out, key, {
        value: await valueAt(parse, vs, ve),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }
  // A long string or a long run of something else: one JSON.parse (strings parse at memory speed).
  return leafInSlices(parse, start, end);
}

/**
 * `text` parsed as JSON.parse would, in slices of `slices.every` characters (one slice when
 * absent); 400 when it is not JSON or nests deeper than MAX_JSON_DEPTH. `leafChars` is for tests.
 */
export async function parseJsonInSlices(
  text: string,
  slices?: WorkSlices,
  leafChars = LEAF_CHARS,
): Promise<unknown> {
  const large = await scanBody(text, slices, leafChars);
  const [start, end] = trimmed(text, 0, text.length);
  if (start === end) throw notJson();
  return valueAt({ text, large, slices, leafChars }, start, end);
}
