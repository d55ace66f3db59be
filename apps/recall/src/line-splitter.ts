import { isAsciiBlank, unicodeBlankLength } from './blank-bytes';
import { type FileProblem, MAX_LINE_BYTES } from './file-codec';

/**
 * A non-blank line after `afterLine`, decoded as UTF-8 (a byte that is not UTF-8 becomes U+FFFD),
 * with its byte length. 'stop' ends reading before the next line.
 */
export type LineHandler = (line: number, text: string, bytes: number) => 'continue' | 'stop';

export type SplitStop = { stop: 'handler' } | { stop: 'problem'; problem: FileProblem };

const NEWLINE = 10;

// Where the current line stands, as far as its bytes go:
/** Only ASCII blanks since the newline: nothing of it is held. */
const BLANK = 0;
/** Blank characters outside ASCII as well (a no-break space, a BOM): held from the first one. */
const UNICODE_BLANK = 1;
/** Something that is not blank: held from the first byte that is not an ASCII blank. */
const TEXT = 2;
type LineState = typeof BLANK | typeof UNICODE_BLANK | typeof TEXT;

export const lineTooLong = (line: number): FileProblem => ({
  stage: 'parse',
  line,
  message: `Line ${line} is longer than ${MAX_LINE_BYTES / 1024} KiB; reading stopped there.`,
});

/**
 * Cuts inflated text into numbered lines, a chunk at a time, synchronously (the caller yields
 * between chunks). Lines up to `afterLine` are only counted, never decoded; blank lines (what
 * trim() would empty, blanks outside ASCII included) are passed over byte by byte without being
 * decoded either, so a file of millions of blank lines costs a loop over its bytes. A line is held
 * only while it is incomplete, and only up to MAX_LINE_BYTES.
 */
export class LineSplitter {
  /** Lines completed so far (the number of the last one). */
  line = 0;
  #carry: Buffer[] = [];
  #carryBytes = 0;
  #state: LineState = BLANK;
  /** Bytes since the last newline: a last line without a newline is a line too. */
  #pending = false;

  constructor(
    private readonly afterLine: number,
    private readonly onLine: LineHandler,
  ) {}

  /** Feeds the next inflated bytes; what stopped reading, or undefined to go on. */
  push(chunk: Buffer): SplitStop | undefined {
    const end = chunk.length;
    if (end === 0) return undefined;
    this.#pending = chunk[end - 1] !== NEWLINE;
    let i = 0;
    if (this.line < this.afterLine) {
      for (; i < end; i++) {
        if (chunk[i] === NEWLINE && ++this.line === this.afterLine) {
          i++;
          break;
        }
      }
      if (this.line < this.afterLine) return undefined;
    }
    // Where the held part of the current line starts in this chunk (a line carried over: 0).
    let start = i;
    let state = this.#state;
    // The line count lives in a local while bytes are looped over (synced before anything else
    // reads it): a file of blank lines is this loop and little else.
    let line = this.line;
    // Only the first line of a chunk can have bytes held from the chunks before it.
    let carried = this.#carry.length > 0;
    while (i < end) {
      if (state === TEXT) {
        const newline = chunk.indexOf(NEWLINE, i);
        if (newline === -1) {
          i = end;
          break;
        }
        this.line = ++line;
        const stop = this.#complete(chunk.subarray(start, newline));
        if (stop) return stop;
        carried = false;
        state = BLANK;
        i = newline + 1;
        start = i;
        continue;
      }
      const b = chunk[i]!;
      if (b === NEWLINE) {
        // A blank line ends: counted, nothing decoded.
        line++;
        if (state === UNICODE_BLANK) {
          if (carried) {
            // Held like any line, so bounded like one (as when it was decoded to be trimmed).
            if (this.#carryBytes + i - start > MAX_LINE_BYTES) {
              this.line = line;
              return { stop: 'problem', problem: lineTooLong(line) };
            }
            this.#drop();
            carried = false;
          }
          state = BLANK;
        }
        i++;
        continue;
      }
      let blank = 0;
      if (b < 0x80) {
        if (isAsciiBlank(b)) {
          i++;
          continue;
        }
      } else {
        blank = unicodeBlankLength(chunk, i);
      }
      if (state === BLANK) start = i;
      if (blank > 0) {
        state = UNICODE_BLANK;
        i += blank;
        continue;
      }
      // Not blank, or a blank cut by the chunk's end: the line is decoded when it ends, and trim()
      // tells then (the cut case is at most one line a chunk).
      state = TEXT;
    }
    this.line = line;
    this.#state = state;
    if (state !== BLANK) {
      const rest = chunk.subarray(start, end);
      this.#carryBytes += rest.length;
      if (this.#carryBytes > MAX_LINE_BYTES) return { stop: 'problem', problem: lineTooLong(line + 1) };
      this.#carry.push(Buffer.from(rest));
    }
    return undefined;
  }

  /** The end of the text: its last line, when it has no newline. */
  finish(): SplitStop | undefined {
    if (!this.#pending || this.line < this.afterLine) {
      if (this.#pending) this.line++;
      return undefined;
    }
    this.line++;
    if (this.#state === TEXT) return this.#complete(Buffer.alloc(0));
    this.#drop();
    return undefined;
  }

  #drop(): void {
    this.#carry = [];
    this.#carryBytes = 0;
  }

  #complete(tail: Buffer): SplitStop | undefined {
    const bytes = this.#carryBytes + tail.length;
    if (bytes > MAX_LINE_BYTES) return { stop: 'problem', problem: lineTooLong(this.line) };
    const text =
      this.#carry.length === 0
        ? tail.toString('utf8')
        : Buffer.concat([...this.#carry, tail]).toString('utf8');
    this.#drop();
    // Only a line whose blank character was cut by a chunk's end gets here blank.
    if (text.trim() === '') return undefined;
    return this.onLine(this.line, text, bytes) === 'stop' ? { stop: 'handler' } : undefined;
  }
}
