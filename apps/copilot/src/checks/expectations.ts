import type { EvidenceStep } from '@svc/tools-verify';
import type { Expectation } from '../grammar/grammar';
import { num } from './compare';
import type { Finding, Verdict } from './finding';

export interface TraceSpan {
  span_id: string;
  operation: string;
  service: string | null;
  status: string;
  offset_ms: number;
  duration_ms: number;
  children: TraceSpan[];
}

export interface FetchedTrace {
  trace_id: string;
  found: boolean;
  span_count: number;
  truncated: boolean;
  services: string[];
  spans: TraceSpan[];
}

/** Every span of the tree, parents before their children, with the span ids above each. */
function flatten(
  spans: TraceSpan[],
  above: readonly string[] = [],
): { span: TraceSpan; above: readonly string[] }[] {
  return spans.flatMap((span) => [{ span, above }, ...flatten(span.children, [...above, span.span_id])]);
}

const label = (s: TraceSpan) => `"${s.operation}"${s.service ? ` (${s.service})` : ''}`;
const traceOf = (t: FetchedTrace) => `trace ${t.trace_id}`;

/**
 * One expectation against one trace. A trace over trace.get's span limit is read as far as it
 * goes: a failure seen there still refutes, but a pass over part of the spans is inconclusive.
 */
export function checkTrace(expectation: Expectation, trace: FetchedTrace): Finding {
  if (!trace.found) return { verdict: 'inconclusive', reason: `No span of ${traceOf(trace)} is stored.` };
  const spans = flatten(trace.spans);
  const partial = trace.truncated ? ` (only ${spans.length} of ${trace.span_count} spans could be read)` : '';
  const passed = (reason: string): Finding =>
    trace.truncated
      ? { verdict: 'inconclusive', reason: reason + partial }
      : { verdict: 'supported', reason };
  switch (expectation.kind) {
    case 'no_span_over': {
      const longest = spans.reduce((a, b) => (b.span.duration_ms > a.span.duration_ms ? b : a)).span;
      return longest.duration_ms > expectation.ms
        ? {
            verdict: 'refuted',
            reason: `In ${traceOf(trace)}, span ${label(longest)} took ${num(longest.duration_ms)} ms, over ${num(expectation.ms)} ms.`,
          }
        : passed(
            `The longest of ${spans.length} spans of ${traceOf(trace)} is ${label(longest)} at ${num(longest.duration_ms)} ms.`,
          );
    }
    case 'no_error_span': {
      const errors = spans.filter((s) => s.span.status === 'error');
      return errors.length > 0
        ? {
            verdict: 'refuted',
            reason: `${traceOf(trace)} has ${errors.length} error span${errors.length > 1 ? 's' : ''}, the first ${label(errors[0]!.span)} at +${num(errors[0]!.span.offset_ms)} ms.`,
          }
        : passed(`None of the ${spans.length} spans of ${traceOf(trace)} has status error.`);
    }
    case 'calls_before': {
      const first = (service: string) =>
        spans
          .filter((s) => s.span.service === service)
          .reduce<(typeof spans)[number] | undefined>(
            (a, b) => (a === undefined || b.span.offset_ms < a.span.offset_ms ? b : a),
            undefined,
          );
      const a = first(expectation.first);
      const b = first(expectation.later);
      const services = trace.services.join(', ');
      if (b === undefined)
        return {
          verdict: 'inconclusive',
          reason: `${traceOf(trace)} has no span of service ${expectation.later} (services: ${services})${partial}.`,
        };
      if (a === undefined)
        return trace.truncated
          ? {
              verdict: 'inconclusive',
              reason: `No span of service ${expectation.first} in the spans read${partial}.`,
            }
          : {
              verdict: 'refuted',
              reason: `${traceOf(trace)} calls ${expectation.later} (${label(b.span)} at +${num(b.span.offset_ms)} ms) and never ${expectation.first} (services: ${services}).`,
            };
      // Spans start at millisecond resolution: a tie counts as "before" only when the first
      // service's span is an ancestor of the later one (it made the call).
      const before =
        a.span.offset_ms < b.span.offset_ms ||
        (a.span.offset_ms === b.span.offset_ms && b.above.includes(a.span.span_id));
      const at = (s: TraceSpan) => `span ${label(s)} at +${num(s.offset_ms)} ms`;
      return before
        ? passed(
            `In ${traceOf(trace)}, ${expectation.first} first appears in ${at(a.span)}, ${expectation.later} in ${at(b.span)}.`,
          )
        : {
            verdict: 'refuted',
            reason: `In ${traceOf(trace)}, ${expectation.later} appears first, in ${at(b.span)}; ${expectation.first} only in ${at(a.span)}.`,
          };
    }
  }
}

/** refuted beats inconclusive beats supported: one failing case refutes "every". */
export function combine(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('refuted')) return 'refuted';
  if (verdicts.includes('inconclusive') || verdicts.length === 0) return 'inconclusive';
  return 'supported';
}

/** One evidence step per trace: the trace.get answer the expectation was read from. */
export function traceStep(step: number, trace: FetchedTrace, finding: Finding): EvidenceStep {
  return { step, tool: 'trace.get', parameters: { trace_id: trace.trace_id }, observed: finding.reason };
}
