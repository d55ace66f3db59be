import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { assertIdentifier } from './options';

// Rows to JSONCompactEachRow for one insert, a slice of rows at a time. A request may carry 20,000
// rows (10 MB) and the coalescer merges several requests into one insert: one JSON.stringify of
// all of them held the event loop for 60-90 ms, and every other request of the process (in the
// one-process stack, every service) waited. Between slices the loop turns.

/** Work done between two turns of the event loop, at most (about). */
const SLICE_MS = 4;
/** Rows between two looks at the clock. */
const ROWS_PER_CHECK = 256;

/** Lets the event loop turn once a slice of work has run `sliceMs`; counts the turns. */
class Slicer {
  pauses = 0;
  #start = performance.now();
  constructor(readonly sliceMs: number) {}
  due(): boolean {
    return performance.now() - this.#start >= this.sliceMs;
  }
  async pause(): Promise<void> {
    await yieldToLoop();
    this.pauses++;
    this.#start = performance.now();
  }
}

/**
 * The columns of `rows` in first-seen order, less those no row has a value for (the engine stores
 * their default with nothing to parse), as `compactRows` names them.
 */
async function columnsOf(rows: readonly Record<string, unknown>[], slicer: Slicer): Promise<string[]> {
  const order: string[] = [];
  const valued = new Map<string, boolean>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (const key in row) {
      const has = row[key] != null;
      const seen = valued.get(key);
      if (seen === undefined) {
        order.push(key);
        valued.set(key, has);
      } else if (!seen && has) valued.set(key, true);
    }
    if (i % ROWS_PER_CHECK === ROWS_PER_CHECK - 1 && slicer.due()) await slicer.pause();
  }
  const columns = order.filter((column) => valued.get(column));
  for (const column of columns) assertIdentifier('column', column);
  return columns;
}

export interface EncodedRows {
  /** The columns named, in the order of each row's values. */
  columns: string[];
  /** Rows as JSON arrays, one a line. */
  body: Buffer;
  /** How many times the encoding let the event loop turn (tests count them). */
  pauses: number;
}

/**
 * The same columns and values as `compactRows` (a missing value is null, which the engine stores
 * as the column's default), encoded to bytes in slices of about SLICE_MS.
 */
export async function encodeRowsInSlices(
  rows: readonly Record<string, unknown>[],
  sliceMs = SLICE_MS,
): Promise<EncodedRows> {
  const slicer = new Slicer(sliceMs);
  const columns = await columnsOf(rows, slicer);
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    chunks.push(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
    lines = [];
  };
  const values: unknown[] = new Array(columns.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let c = 0; c < columns.length; c++) values[c] = row[columns[c]!] ?? null;
    lines.push(JSON.stringify(values));
    if (i % ROWS_PER_CHECK === ROWS_PER_CHECK - 1 && slicer.due()) {
      flush();
      await slicer.pause();
    }
  }
  flush();
  return {
    columns,
    body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
    pauses: slicer.pauses,
  };
}

/**
 * For a server's client, which encodes each row itself as its stream is read: the columns, and the
 * rows' value arrays as an async iterable that lets the loop turn between slices.
 */
export async function rowArraysInSlices(
  rows: readonly Record<string, unknown>[],
  sliceMs = SLICE_MS,
): Promise<{ columns: string[]; values: AsyncIterable<unknown[]> }> {
  const slicer = new Slicer(sliceMs);
  const columns = await columnsOf(rows, slicer);
  async function* values(): AsyncGenerator<unknown[]> {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      yield columns.map((column) => row[column] ?? null);
      if (i % ROWS_PER_CHECK === ROWS_PER_CHECK - 1 && slicer.due()) await slicer.pause();
    }
  }
  return { columns, values: values() };
}
