// A minimal protobuf writer for hostile OTLP bodies: sizes and nestings no SDK would produce
// (100,000 spans in one request, attribute values nested 1,000 deep). Field numbers are those of
// opentelemetry-proto's trace/v1 and common/v1 messages.

type Field = Buffer;

function varint(value: number | bigint): Buffer {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

const key = (field: number, wire: number) => varint((field << 3) | wire);

export const pb = {
  varint: (field: number, value: number | bigint): Field => Buffer.concat([key(field, 0), varint(value)]),
  fixed64: (field: number, value: bigint): Field => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(value);
    return Buffer.concat([key(field, 1), b]);
  },
  double: (field: number, value: number): Field => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    return Buffer.concat([key(field, 1), b]);
  },
  bytes: (field: number, value: Buffer | string): Field => {
    const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    return Buffer.concat([key(field, 2), varint(b.length), b]);
  },
  message: (field: number, ...parts: Field[]): Field => {
    const body = Buffer.concat(parts);
    return Buffer.concat([key(field, 2), varint(body.length), body]);
  },
};

/** An AnyValue holding a string (field 1 of AnyValue). */
export const anyString = (field: number, s: string | Buffer) => pb.message(field, pb.bytes(1, s));

/** KeyValue{key, value: AnyValue} with `value` the AnyValue's fields. */
export const keyValue = (field: number, k: string, ...value: Field[]) =>
  pb.message(field, pb.bytes(1, k), pb.message(2, ...value));

/** An attribute whose value is a kvlist nested `depth` deep, ending in a string. */
export function nestedKvlistAttribute(field: number, depth: number): Field {
  let value: Field = pb.bytes(1, 'leaf');
  for (let i = 0; i < depth; i++) value = pb.message(6, keyValue(1, `k${i}`, value));
  return keyValue(field, 'nested', value);
}

export interface ProtoSpan {
  traceId: Buffer;
  spanId: Buffer;
  name: string;
  kind?: number;
  startNs: bigint;
  endNs: bigint;
  attributes?: Field[];
}

/** Span fields: 1 trace_id, 2 span_id, 5 name, 6 kind, 7 start, 8 end, 9 attributes. */
export function span(field: number, s: ProtoSpan): Field {
  return pb.message(
    field,
    pb.bytes(1, s.traceId),
    pb.bytes(2, s.spanId),
    pb.bytes(5, s.name),
    pb.varint(6, s.kind ?? 2),
    pb.fixed64(7, s.startNs),
    pb.fixed64(8, s.endNs),
    ...(s.attributes ?? []),
  );
}

/** ExportTraceServiceRequest{resource_spans: [{resource: {service.name}, scope_spans: [{spans}]}]}. */
export function traceRequest(spans: Field[], service = 'hostile'): Buffer {
  return pb.message(
    1,
    pb.message(1, keyValue(1, 'service.name', pb.bytes(1, service))),
    pb.message(2, ...spans),
  );
}
