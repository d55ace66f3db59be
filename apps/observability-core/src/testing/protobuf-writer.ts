// A minimal protobuf writer for OTLP bodies no SDK writes (attribute values nested 1,000 deep,
// 100,000 spans, bytes that are not UTF-8, kinds out of range). Field numbers are those of
// opentelemetry-proto's collector, trace, logs, metrics and common v1 messages.

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
  varint: (field: number, value: number | bigint) => Buffer.concat([key(field, 0), varint(value)]),
  fixed64: (field: number, value: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(value);
    return Buffer.concat([key(field, 1), b]);
  },
  double: (field: number, value: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    return Buffer.concat([key(field, 1), b]);
  },
  bytes: (field: number, value: Buffer | string) => {
    const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    return Buffer.concat([key(field, 2), varint(b.length), b]);
  },
  message: (field: number, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([key(field, 2), varint(body.length), body]);
  },
};

/** KeyValue{key, value: AnyValue{...value}} as field `field`. */
export const keyValue = (field: number, k: string | Buffer, ...value: Buffer[]) =>
  pb.message(field, pb.bytes(1, k), pb.message(2, ...value));

/** An attribute (span field 9) whose value is a kvlist nested `depth` deep around a string. */
export function nestedKvlistAttribute(depth: number): Buffer {
  let value: Buffer = pb.bytes(1, 'leaf');
  for (let i = 0; i < depth; i++) value = pb.message(6, keyValue(1, `k${i}`, value));
  return keyValue(9, 'nested', value);
}

export interface ProtoSpan {
  traceId: Buffer;
  spanId: Buffer;
  name: string | Buffer;
  kind?: number;
  startNs: bigint;
  endNs: bigint;
  /** Encoded span fields (attributes: field 9). */
  extra?: Buffer[];
}

/** A Span (1 trace_id, 2 span_id, 5 name, 6 kind, 7 start, 8 end). */
export const protoSpan = (s: ProtoSpan) =>
  pb.message(
    2,
    pb.bytes(1, s.traceId),
    pb.bytes(2, s.spanId),
    pb.bytes(5, s.name),
    pb.varint(6, s.kind ?? 2),
    pb.fixed64(7, s.startNs),
    pb.fixed64(8, s.endNs),
    ...(s.extra ?? []),
  );

/** ExportTraceServiceRequest{resourceSpans: [{resource: service.name, scopeSpans: [{spans}]}]}. */
export function traceRequestBody(spans: Buffer[], service = 'svc'): Buffer {
  const resource = pb.message(1, keyValue(1, 'service.name', pb.bytes(1, service)));
  return pb.message(1, resource, pb.message(2, ...spans));
}

/** ExportLogsServiceRequest{resourceLogs: [{scopeLogs: [{logRecords}]}]}; each record's fields as given. */
export const logsRequestBody = (records: Buffer[][]) =>
  pb.message(1, pb.message(2, ...records.map((fields) => pb.message(2, ...fields))));

/** LogRecord fields: 1 time, 2 severityNumber, 3 severityText, 5 body, 6 attributes, 9 traceId, 10 spanId. */
export const logField = {
  time: (ns: bigint) => pb.fixed64(1, ns),
  severity: (n: number | bigint) => pb.varint(2, n),
  severityText: (t: Buffer | string) => pb.bytes(3, t),
  body: (...anyValue: Buffer[]) => pb.message(5, ...anyValue),
  attribute: (k: string | Buffer, ...anyValue: Buffer[]) => keyValue(6, k, ...anyValue),
  traceId: (b: Buffer) => pb.bytes(9, b),
  spanId: (b: Buffer) => pb.bytes(10, b),
};

/** ExportMetricsServiceRequest with one gauge per metric: [name, points (each a NumberDataPoint's fields)]. */
export const gaugeRequestBody = (metrics: [string | Buffer, Buffer[][]][]) =>
  pb.message(
    1,
    pb.message(
      2,
      ...metrics.map(([name, points]) =>
        pb.message(2, pb.bytes(1, name), pb.message(5, ...points.map((fields) => pb.message(1, ...fields)))),
      ),
    ),
  );

/** NumberDataPoint fields: 3 time, 4 asDouble, 6 asInt, 7 attributes. */
export const pointField = {
  time: (ns: bigint) => pb.fixed64(3, ns),
  asDouble: (x: number) => pb.double(4, x),
  asInt: (n: bigint) => pb.fixed64(6, BigInt.asUintN(64, n)),
  attribute: (k: string | Buffer, ...anyValue: Buffer[]) => keyValue(7, k, ...anyValue),
};
