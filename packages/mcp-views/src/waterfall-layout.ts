// The waterfall's geometry, apart from its markup so it can be tested on plain numbers: spans in
// tree order with their depth, and each bar's place on one time axis shared by the whole trace.
// One implementation for both waterfalls: the console's trace page and the trace.get view.

import type { TraceSpanNode } from '@svc/tools-trace';

/** One span of trace.get's answer, as the tool defines it (a type only: nothing of it runs here). */
export type TraceSpan = TraceSpanNode;

/** Bars live in an SVG whose viewBox is this wide; the browser stretches it to the row. */
export const AXIS_WIDTH = 1000;
/** A span of (almost) no duration still gets a bar one can see: 0.3% of the axis. */
export const MIN_BAR_WIDTH = 3;

export interface WaterfallRow {
  span: TraceSpan;
  /** 0 for a top-level span (the root, or an orphan whose parent is not in the trace). */
  depth: number;
  /** Left edge and length of the bar in viewBox units (0..AXIS_WIDTH). */
  x: number;
  width: number;
}

export interface WaterfallLayout {
  rows: WaterfallRow[];
  /** Length of the time axis in ms: the trace's duration, or its last span end if later. */
  axisMs: number;
}

export type KindClass = 'kind-server' | 'kind-client' | 'kind-other';

/** The waterfall's colors: server green, client blue, any other kind gray (error red is a status class). */
export function kindClass(kind: string): KindClass {
  const k = kind.toLowerCase();
  return k === 'server' ? 'kind-server' : k === 'client' ? 'kind-client' : 'kind-other';
}

export const isError = (span: Pick<TraceSpan, 'status'>): boolean => span.status.toLowerCase() === 'error';

/** Bar classes of a span: the error class comes last and the stylesheet lets it win over the kind. */
export function barClasses(span: Pick<TraceSpan, 'kind' | 'status'>): string {
  return `span-bar ${kindClass(span.kind)}${isError(span) ? ' status-error' : ''}`;
}

// Two decimals of a 1000-unit axis are finer than any screen: keeps the HTML short.
const round = (n: number) => Math.round(n * 100) / 100;

/**
 * A bar's left edge and length for a span starting `offsetMs` after the trace start and lasting
 * `durationMs`, on an axis of `axisMs`. Short spans are widened to MIN_BAR_WIDTH, and moved left
 * when that would run past the axis end.
 */
export function barGeometry(
  offsetMs: number,
  durationMs: number,
  axisMs: number,
): { x: number; width: number } {
  if (!(axisMs > 0)) return { x: 0, width: MIN_BAR_WIDTH };
  const scale = AXIS_WIDTH / axisMs;
  const width = Math.min(AXIS_WIDTH, Math.max(MIN_BAR_WIDTH, Math.max(0, durationMs) * scale));
  const x = Math.min(Math.max(0, offsetMs) * scale, AXIS_WIDTH - width);
  return { x: round(x), width: round(width) };
}

/** The latest end of any span in the tree, in ms after the trace start. */
function lastEnd(spans: TraceSpan[]): number {
  let end = 0;
  const stack = [...spans];
  for (let span = stack.pop(); span; span = stack.pop()) {
    end = Math.max(end, span.offset_ms + span.duration_ms);
    stack.push(...span.children);
  }
  return end;
}

// Stable sort: spans starting together keep the order the tool gave them.
const byStart = (spans: TraceSpan[]) => [...spans].sort((a, b) => a.offset_ms - b.offset_ms);

/**
 * trace.get's tree as waterfall rows: depth first, each span followed by its children by start
 * time, top-level spans (root and orphans) by start time too. Iterative, so a deep trace cannot
 * exhaust the stack.
 */
export function layoutWaterfall(topLevel: TraceSpan[], traceDurationMs: number): WaterfallLayout {
  const axisMs = Math.max(traceDurationMs, lastEnd(topLevel));
  const rows: WaterfallRow[] = [];
  const stack = byStart(topLevel)
    .reverse()
    .map((span) => ({ span, depth: 0 }));
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { span, depth } = next;
    rows.push({ span, depth, ...barGeometry(span.offset_ms, span.duration_ms, axisMs) });
    for (const child of byStart(span.children).reverse()) stack.push({ span: child, depth: depth + 1 });
  }
  return { rows, axisMs };
}
