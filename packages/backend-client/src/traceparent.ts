// The ids module alone: the gateway needs no instrumentation loaded.
import { newSpanId, newTraceId } from '@svc/sdk-core/ids';

// W3C Trace Context (W3C Trace Context, level 1): `00-<32 hex trace_id>-<16 hex span_id>-<2 hex flags>`.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function isValidTraceparent(value: string): boolean {
  const m = TRACEPARENT.exec(value);
  if (!m) return false;
  const [, version, traceId, spanId] = m;
  // Version ff is forbidden; all-zero ids are invalid by the spec.
  return version !== 'ff' && !/^0+$/.test(traceId!) && !/^0+$/.test(spanId!);
}

/** A fresh, sampled root context. */
export function newTraceparent(): string {
  return `00-${newTraceId()}-${newSpanId()}-01`;
}

/**
 * The header an outbound call carries when the service reports no spans of its own (self-tracing
 * off; with a tracer, the header points at the call's client span instead). A valid inbound context
 * is passed on unchanged, so the downstream server span points at the caller's real span (a made-up
 * intermediate span id would leave an orphan in the trace tree).
 */
export function outboundTraceparent(given: string | undefined): string {
  const candidate = given?.trim().toLowerCase();
  return candidate && isValidTraceparent(candidate) ? candidate : newTraceparent();
}
