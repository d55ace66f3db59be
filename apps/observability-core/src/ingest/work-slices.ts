// Ingest work is done in slices with a pause between them, so that no single request holds the
// event loop for long, however large its body (docs/ingest.md, "Request size"): each loop counts
// the units of work it did (bytes decoded, records checked, JSON values walked) and pauses when a
// slice is full. A slice's size is fixed by construction, so a request's longest hold is bounded
// by the work of one slice whatever the request holds.

/** The default pause: other callbacks (other requests, health checks, timers) run before the next slice. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorkSlices {
  private done = 0;
  /** Units of work counted so far (tests check where a refusal stopped). */
  total = 0;
  /** Pauses taken so far (tests count them). */
  pauses = 0;
  /** The most units done between two pauses (tests check it against `every`). */
  largestSlice = 0;

  constructor(
    /** Units of work per slice. */
    readonly every: number,
    private readonly pauseFn: () => Promise<void> = yieldToEventLoop,
  ) {}

  /** Counts `units` of work; true when the slice is full and the caller should `await pause()`. */
  add(units = 1): boolean {
    this.done += units;
    this.total += units;
    return this.done >= this.every;
  }

  /** Units left in the current slice: how much a loop may do before its next `add`. */
  room(): number {
    return Math.max(1, this.every - this.done);
  }

  async pause(): Promise<void> {
    if (this.done > this.largestSlice) this.largestSlice = this.done;
    this.done = 0;
    this.pauses++;
    await this.pauseFn();
  }
}

/** How an ingest request slices its work; tests pass their own to count pauses. */
export interface IngestSlicing {
  /** Bytes of a protobuf body decoded per slice. */
  protobufBytes: WorkSlices;
  /** Characters of a JSON body scanned (and parsed) per slice. */
  jsonChars: WorkSlices;
  /** JSON values (objects, arrays, strings, numbers...) of a JSON body walked per slice. */
  jsonValues: WorkSlices;
  /** Records mapped from OTLP and validated per slice. */
  records: WorkSlices;
}

/** Slice sizes chosen so that a slice takes a few milliseconds on a slow core (docs/ingest.md). */
export const SLICE_PROTOBUF_BYTES = 64 * 1024;
export const SLICE_JSON_CHARS = 512 * 1024;
export const SLICE_JSON_VALUES = 10_000;
export const SLICE_RECORDS = 500;

/** The slices of one request; JSON bodies: their characters, then their values. */
export const jsonSlicesOf = (s: IngestSlicing) => ({ chars: s.jsonChars, values: s.jsonValues });

export function defaultSlicing(): IngestSlicing {
  return {
    protobufBytes: new WorkSlices(SLICE_PROTOBUF_BYTES),
    jsonChars: new WorkSlices(SLICE_JSON_CHARS),
    jsonValues: new WorkSlices(SLICE_JSON_VALUES),
    records: new WorkSlices(SLICE_RECORDS),
  };
}
