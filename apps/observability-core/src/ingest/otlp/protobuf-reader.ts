// A protobuf wire-format decoder driven by a schema (field number -> name and type), written for
// OTLP/HTTP protobuf requests: it turns a message into the object OTLP/HTTP JSON would have sent
// (camelCase names, ids as hex, int64 as decimal strings, bytes values as base64), so one mapping
// serves both encodings. Unknown fields are skipped, as protobuf requires; a malformed message is
// a ProtobufError naming the field (the request's fault, a 400), never a partial result.
//
// It walks the message without recursion (a stack of the messages it is inside), so nesting is
// bounded by MAX_MESSAGE_DEPTH, not by the call stack, and it can pause between slices of bytes
// (work-slices.ts): a 10 MB body never holds the event loop for its whole decoding. Strings that
// are not UTF-8 are decoded with U+FFFD in place of the bad bytes, as every string stored is.

import { formatPath, type PathSegment } from '../json/json-path';
import type { WorkSlices } from '../work-slices';

export class ProtobufError extends Error {
  constructor(
    readonly reason: string,
    /** Where, as a JSON path of the decoded message (`resourceSpans[0].scopeSpans[0]`). */
    readonly path: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}

/** More elements of a `counted` field than the decoder was allowed (`maxCounted`). */
export class TooManyElementsError extends Error {
  constructor(readonly field: string) {
    super(`more than the allowed number of ${field}`);
  }
}

export type Scalar =
  | 'string'
  | 'bool'
  /** uint32, int32 (non-negative in OTLP), enums. */
  | 'varint'
  /** int64 as a varint, as a decimal string. */
  | 'int64'
  /** sint32 (zigzag). */
  | 'sint'
  /** fixed64 as a decimal string (timestamps in nanoseconds, counts). */
  | 'fixed64'
  /** sfixed64 as a decimal string. */
  | 'sfixed64'
  | 'fixed32'
  | 'double'
  /** Ids: bytes as lowercase hex. */
  | 'hex'
  /** Other bytes: base64, as OTLP JSON writes them. */
  | 'base64';

export type FieldSpec =
  | { name: string; type: Scalar; repeated?: boolean }
  | {
      name: string;
      type: 'message';
      schema: () => Schema;
      repeated?: boolean;
      /** Elements of this field count against `maxCounted` (the records a request maps to). */
      counted?: boolean;
    };

export type Schema = Readonly<Record<number, FieldSpec>>;

/** Messages inside messages; OTLP itself needs about 30 for an attribute nested 8 deep. */
export const MAX_MESSAGE_DEPTH = 32;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

const WIRE_OF: Record<Scalar, number> = {
  string: WIRE_LENGTH,
  bool: WIRE_VARINT,
  varint: WIRE_VARINT,
  int64: WIRE_VARINT,
  sint: WIRE_VARINT,
  fixed64: WIRE_FIXED64,
  sfixed64: WIRE_FIXED64,
  fixed32: WIRE_FIXED32,
  double: WIRE_FIXED64,
  hex: WIRE_LENGTH,
  base64: WIRE_LENGTH,
};

/** Not fatal: bytes that are not UTF-8 become U+FFFD. */
const utf8 = new TextDecoder('utf-8');
const TWO_32 = 2 ** 32;
/** Below this high word, a 64-bit value is exact as a double (< 2^53). */
const SAFE_HIGH = 2 ** 21;

/** One message being read: where it ends, its schema, what it became, and its place for errors. */
interface Frame {
  end: number;
  schema: Schema;
  out: Record<string, unknown>;
  segment: PathSegment | undefined;
  index: number | undefined;
}

class Decoder {
  pos = 0;
  private readonly view: DataView;
  readonly stack: Frame[] = [];
  counted = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(reason: string, field?: string): never {
    const segments: PathSegment[] = [];
    for (const frame of this.stack) {
      if (frame.segment !== undefined) segments.push(frame.segment);
      if (frame.index !== undefined) segments.push(frame.index);
    }
    if (field !== undefined) segments.push(field);
    // At the top level there is no field to name: the request message itself.
    throw new ProtobufError(`${reason} (at byte ${this.pos})`, formatPath(segments) || '(the message)');
  }

  /** A varint up to 2^53 as a number (tags, lengths, enums, 32-bit values). */
  varint(end: number): number {
    let result = 0;
    let multiplier = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++]!;
      result += (byte & 0x7f) * multiplier;
      if (byte < 0x80) return result;
      multiplier *= 128;
    }
    this.fail('varint longer than 10 bytes');
  }

  /** A 64-bit varint, two's complement for negatives, as a BigInt. */
  varint64(end: number): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
    this.fail('varint longer than 10 bytes');
  }

  need(n: number, end: number, field?: string): number {
    if (n < 0 || this.pos + n > end) this.fail('field runs past the end of its message', field);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  fixed64(signed: boolean, end: number): string {
    const at = this.need(8, end);
    const low = this.view.getUint32(at, true);
    const high = this.view.getUint32(at + 4, true);
    if (high < SAFE_HIGH) return String(high * TWO_32 + low);
    return (signed ? this.view.getBigInt64(at, true) : this.view.getBigUint64(at, true)).toString();
  }

  skip(wire: number, end: number): void {
    if (wire === WIRE_VARINT) this.varint64(end);
    else if (wire === WIRE_FIXED64) this.need(8, end);
    else if (wire === WIRE_LENGTH) this.need(this.varint(end), end);
    else if (wire === WIRE_FIXED32) this.need(4, end);
    else this.fail(`unsupported wire type ${wire}`);
  }

  scalar(type: Scalar, end: number, field: string): unknown {
    switch (type) {
      case 'string': {
        const at = this.need(this.varint(end), end, field);
        return utf8.decode(this.bytes.subarray(at, this.pos));
      }
      case 'bool':
        return this.varint(end) !== 0;
      case 'varint':
        return this.varint(end);
      case 'int64':
        return this.varint64(end).toString();
      case 'sint': {
        const n = this.varint(end);
        return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      }
      case 'fixed64':
        return this.fixed64(false, end);
      case 'sfixed64':
        return this.fixed64(true, end);
      case 'fixed32':
        return this.view.getUint32(this.need(4, end), true);
      case 'double':
        return this.view.getFloat64(this.need(8, end), true);
      case 'hex': {
        const at = this.need(this.varint(end), end, field);
        return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, this.pos - at).toString('hex');
      }
      case 'base64': {
        const at = this.need(this.varint(end), end, field);
        return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, this.pos - at).toString('base64');
      }
    }
  }
}

export interface DecodeOptions {
  /** Pauses between slices of `slices.every` bytes. */
  slices?: WorkSlices;
  /** The most elements of `counted` fields, all together; beyond: TooManyElementsError. */
  maxCounted?: number;
}

/** `bytes` decoded as a message of `schema`; throws ProtobufError when it is not one. */
export async function decodeProtobuf(
  bytes: Uint8Array,
  schema: Schema,
  options: DecodeOptions = {},
): Promise<Record<string, unknown>> {
  const d = new Decoder(bytes);
  const root: Record<string, unknown> = {};
  d.stack.push({ end: bytes.length, schema, out: root, segment: undefined, index: undefined });
  const { slices } = options;
  const maxCounted = options.maxCounted ?? Number.POSITIVE_INFINITY;
  let sliceStart = 0;
  while (d.stack.length > 0) {
    const frame = d.stack[d.stack.length - 1]!;
    if (d.pos >= frame.end) {
      d.stack.pop();
      continue;
    }
    if (slices?.add(d.pos - sliceStart)) await slices.pause();
    sliceStart = d.pos;
    const tag = d.varint(frame.end);
    const field = frame.schema[Math.floor(tag / 8)];
    const wire = tag & 7;
    if (!field) {
      d.skip(wire, frame.end);
      continue;
    }
    let value: unknown;
    let child: Frame | undefined;
    if (field.type === 'message') {
      if (wire !== WIRE_LENGTH) d.fail(`wrong wire type ${wire}`, field.name);
      const length = d.varint(frame.end);
      const at = d.need(length, frame.end, field.name);
      d.pos = at;
      value = {};
      child = {
        end: at + length,
        schema: field.schema(),
        out: value as Record<string, unknown>,
        segment: field.name,
        index: undefined,
      };
      if (field.counted && ++d.counted > maxCounted) throw new TooManyElementsError(field.name);
    } else {
      if (wire !== WIRE_OF[field.type]) d.fail(`wrong wire type ${wire}`, field.name);
      value = d.scalar(field.type, frame.end, field.name);
    }
    if (!field.repeated) frame.out[field.name] = value;
    else {
      const list = frame.out[field.name];
      if (Array.isArray(list)) list.push(value);
      else frame.out[field.name] = [value];
      if (child) child.index = (frame.out[field.name] as unknown[]).length - 1;
    }
    if (child) {
      if (d.stack.length > MAX_MESSAGE_DEPTH) {
        d.stack.push(child);
        d.fail(`messages nested more than ${MAX_MESSAGE_DEPTH} levels deep`);
      }
      d.stack.push(child);
    }
  }
  return root;
}
