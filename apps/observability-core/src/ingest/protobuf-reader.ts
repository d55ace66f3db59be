// A protobuf wire-format decoder driven by a schema (field number -> name and type), written for
// OTLP/HTTP protobuf requests: it turns a message into the object OTLP/HTTP JSON would have sent
// (camelCase names, ids as hex, int64 as decimal strings, bytes values as base64), so one mapping
// serves both encodings. Unknown fields are skipped, as protobuf requires; a malformed message is
// a ProtobufError (the request's fault, a 400), never a partial result.

export class ProtobufError extends Error {}

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
  | { name: string; type: 'message'; schema: () => Schema; repeated?: boolean };

export type Schema = Readonly<Record<number, FieldSpec>>;

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

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  pos: number;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** A varint up to 2^53 as a number (tags, lengths, enums, 32-bit values). */
  varint(): number {
    let result = 0;
    let multiplier = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('truncated varint');
      const byte = this.bytes[this.pos++]!;
      result += (byte & 0x7f) * multiplier;
      if (byte < 0x80) return result;
      multiplier *= 128;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /** A 64-bit varint, two's complement for negatives, as a BigInt. */
  varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('truncated varint');
      const byte = this.bytes[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  need(n: number): number {
    if (n < 0 || this.pos + n > this.end) throw new ProtobufError('field runs past the end of its message');
    const at = this.pos;
    this.pos += n;
    return at;
  }

  fixed64(signed: boolean): string {
    const at = this.need(8);
    return (signed ? this.view.getBigInt64(at, true) : this.view.getBigUint64(at, true)).toString();
  }

  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint64();
    else if (wire === WIRE_FIXED64) this.need(8);
    else if (wire === WIRE_LENGTH) this.need(this.varint());
    else if (wire === WIRE_FIXED32) this.need(4);
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }

  scalar(type: Scalar): unknown {
    switch (type) {
      case 'string': {
        const at = this.need(this.varint());
        try {
          return utf8.decode(this.bytes.subarray(at, this.pos));
        } catch {
          throw new ProtobufError('a string field is not UTF-8');
        }
      }
      case 'bool':
        return this.varint() !== 0;
      case 'varint':
        return this.varint();
      case 'int64':
        return this.varint64().toString();
      case 'sint': {
        const n = this.varint();
        return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      }
      case 'fixed64':
        return this.fixed64(false);
      case 'sfixed64':
        return this.fixed64(true);
      case 'fixed32':
        return this.view.getUint32(this.need(4), true);
      case 'double':
        return this.view.getFloat64(this.need(8), true);
      case 'hex': {
        const at = this.need(this.varint());
        let hex = '';
        for (let i = at; i < this.pos; i++) hex += HEX[this.bytes[i]!];
        return hex;
      }
      case 'base64': {
        const at = this.need(this.varint());
        return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, this.pos - at).toString('base64');
      }
    }
  }

  message(schema: Schema, depth: number): Record<string, unknown> {
    // AnyValue nests without limit in principle; a request that nests this deep is an attack.
    if (depth > 32) throw new ProtobufError('message nested more than 32 levels deep');
    const out: Record<string, unknown> = {};
    while (this.pos < this.end) {
      const tag = this.varint();
      const field = schema[Math.floor(tag / 8)];
      const wire = tag & 7;
      if (!field) {
        this.skip(wire);
        continue;
      }
      let value: unknown;
      if (field.type === 'message') {
        if (wire !== WIRE_LENGTH) throw new ProtobufError(`${field.name}: wrong wire type ${wire}`);
        const length = this.varint();
        const at = this.need(length);
        value = new Reader(this.bytes, at, at + length).message(field.schema(), depth + 1);
      } else {
        if (wire !== WIRE_OF[field.type]) throw new ProtobufError(`${field.name}: wrong wire type ${wire}`);
        value = this.scalar(field.type);
      }
      if (!field.repeated) out[field.name] = value;
      else if (Array.isArray(out[field.name])) (out[field.name] as unknown[]).push(value);
      else out[field.name] = [value];
    }
    return out;
  }
}

/** `bytes` decoded as a message of `schema`; throws ProtobufError when it is not one. */
export function decodeProtobuf(bytes: Uint8Array, schema: Schema): Record<string, unknown> {
  return new Reader(bytes, 0, bytes.length).message(schema, 0);
}
