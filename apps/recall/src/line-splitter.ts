import { type FileProblem, MAX_LINE_BYTES } from './file-codec';

/**
 * A non-blank line after `afterLine`, decoded as UTF-8 (a byte that is not UTF-8 becomes U+FFFD),
 * with its byte length. 'stop' ends reading before the next line.
 */
export type LineHandler = (line: number, text: string, bytes: number) => 'continue' | 'stop';

export type SplitStop = { stop: 'handler' } | { stop: 'problem'; problem: FileProblem };

const NEWLINE = 10;
/** Bytes of JSON whitespace, and \v and \f, which String.prototype.trim removes as well. */
const isBlankByte = (b: number) => b === 32 || b === 9 || b === 13 || b === 11 || b === 12;

export const lineTooLong = (line: number): FileProblem => ({
  stage: 'parse',
  line,
  message: `Line ${line} is longer than ${MAX_LINE_BYTES / 1024} KiB; reading stopped there.`,
});

/**
 * Cuts inflated text into numbered lines, a chunk at a time, synchronously (the caller yields
 * between chunks). Lines up to `afterLine` are only counted, never decoded; blank lines are passed
 * over byte by byte without being decoded either, so a file of millions of empty lines costs a
 * loop over its bytes. A line is held only while it is incomplete, and only up to MAX_LINE_BYTES.
 */
export class LineSplitter {
  /** Lines completed so far (the number of the last one). */
  line = 0;
  #carry: Buffer[] = [];
  #carryBytes = 0;
  /** A non-blank byte has been seen since the last newline (the carry holds it and what follows). */
  #nonBlank = false;
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
    let start = i;
    let nonBlank = this.#nonBlank;
    while (i < end) {
      if (nonBlank) {
        const newline = chunk.indexOf(NEWLINE, i);
        if (newline === -1) {
          i = end;
          break;
        }
        i = newline;
      } else {
        const b = chunk[i]!;
        if (b !== NEWLINE) {
          if (!isBlankByte(b)) {
            nonBlank = true;
            start = i;
          }
          i++;
          continue;
        }
      }
      // chunk[i] ends line this.line + 1.
      this.line++;
      if (nonBlank) {
        const stop = this.#complete(chunk.subarray(start, i));
        if (stop) return stop;
      }
      nonBlank = false;
      i++;
      start = i;
    }
    this.#nonBlank = nonBlank;
    if (nonBlank) {
      const rest = chunk.subarray(start, end);
      this.#carryBytes += rest.length;
      if (this.#carryBytes > MAX_LINE_BYTES) return { stop: 'problem', problem: lineTooLong(this.line + 1) };
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
    return this.#nonBlank ? this.#complete(Buffer.alloc(0)) : undefined;
  }

  #complete(tail: Buffer): SplitStop | undefined {
    const bytes = this.#carryBytes + tail.length;
    if (bytes > MAX_LINE_BYTES) return { stop: 'problem', problem: lineTooLong(this.line) };
    const text =
      this.#carry.length === 0
        ? tail.toString('utf8')
        : Buffer.concat([...this.#carry, tail]).toString('utf8');
    this.#carry = [];
    this.#carryBytes = 0;
    this.#nonBlank = false;
    // Unicode blanks (a no-break space, a byte-order mark) make a blank line too, as trim() says.
    if (text.trim() === '') return undefined;
    return this.onLine(this.line, text, bytes) === 'stop' ? { stop: 'handler' } : undefined;
  }
}
