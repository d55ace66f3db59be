// W3C Trace Context, `traceparent`: `<version>-<trace_id>-<parent_id>-<flags>`, lowercase hex.
// https://www.w3.org/TR/trace-context/#traceparent-header. A header that does not parse is treated
// as absent (the caller starts a new root trace), never repaired: uppercase hex, all-zero ids,
// wrong lengths, version ff.

export interface SpanContext {
  /** 32 lowercase hex characters, not all zero. */
  traceId: string;
  /** 16 lowercase hex characters, not all zero: the span this context points at. */
  spanId: string;
  /** Flag bit 0: the caller kept (sampled) this trace. */
  sampled: boolean;
}

const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// A later version may append fields ("-..."); its first four parse as version 00 does.
const LATER_VERSION = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ALL_ZERO = /^0+$/;

/** trace id, span id and flags of a header, or undefined when it does not parse. */
function fieldsOf(value: string): [string, string, string] | undefined {
  const current = VERSION_00.exec(value);
  if (current) return [current[1]!, current[2]!, current[3]!];
  const later = LATER_VERSION.exec(value);
  // Version 00 with anything after the flags is invalid; version ff is forbidden.
  if (!later || later[1] === '00' || later[1] === 'ff') return undefined;
  return [later[2]!, later[3]!, later[4]!];
}

/** The context an inbound header carries, or undefined when it is absent or invalid. */
export function parseTraceparent(header: string | readonly string[] | undefined): SpanContext | undefined {
  // Several traceparent headers are ambiguous: treated as none.
  if (typeof header !== 'string') return undefined;
  const fields = fieldsOf(header.trim());
  if (!fields) return undefined;
  const [traceId, spanId, flags] = fields;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The header for an outbound call made inside `context` (always version 00). */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
}
