/** @jsxRuntime automatic @jsxImportSource preact */

import {
  AXIS_WIDTH,
  barClasses,
  isError,
  layoutWaterfall,
  type TraceSpan,
  type WaterfallRow,
} from '@svc/mcp-views/waterfall-layout';
import type { traceGetOutput, traceSearchOutput } from '@svc/tools-trace';
import type { z } from 'zod';
import { formatTime, href, Layout, type PageContext } from './layout';
import { nextLimit, type TraceFilterValues } from './trace-filters';

// The trace pages: the list (trace.search with the filters of a GET form) and one trace as a
// waterfall (trace.get). Bars are SVG rects: their geometry is markup, which the CSP allows, while
// style attributes would not apply. Colors come from classes in console.css and are repeated in
// words (kind, status) so they are never the only way to tell.

export type { TraceSummary } from '@svc/tools-trace';
/** trace.search's and trace.get's answers, as the tools define them (types only). */
export type TraceSearchResult = z.infer<typeof traceSearchOutput>;
export type TraceGetResult = z.infer<typeof traceGetOutput>;

/** Why a tool call gave no result, in words for the page. */
export interface ToolProblem {
  status: number;
  message: string;
}

/** Indentation steps the stylesheet has: deeper spans are indented as much as this. */
export const MAX_INDENT_DEPTH = 12;

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${Number(ms.toFixed(3))} ms`;
}

/** A span's start to the millisecond (formatTime drops them: within a trace they matter). */
export function formatSpanTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}

function ProblemNotice({ problem }: { problem: ToolProblem }) {
  return (
    <p role="alert" class="notice error" data-status={problem.status}>
      {problem.message}
    </p>
  );
}

function TraceFilterForm({ ctx, values }: { ctx: PageContext; values: TraceFilterValues }) {
  return (
    <form method="get" action="/traces" class="trace-filters" aria-labelledby="filters-heading">
      <h2 id="filters-heading" class="visually-hidden">
        Filters
      </h2>
      <input type="hidden" name="project" value={ctx.projectId} />
      <div class="grid">
        <div>
          <label for="filter-user">User id</label>
          <input id="filter-user" name="user_id" maxLength={200} value={values.user_id ?? ''} />
        </div>
        <div>
          <label for="filter-session">Session id</label>
          <input id="filter-session" name="session_id" maxLength={200} value={values.session_id ?? ''} />
        </div>
        <div>
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="" selected={!values.status}>
              Any
            </option>
            <option value="error" selected={values.status === 'error'}>
              Error (any span failed)
            </option>
            <option value="ok" selected={values.status === 'ok'}>
              OK (no span failed)
            </option>
          </select>
        </div>
      </div>
      <div class="grid">
        <div>
          <label for="filter-operation">Root operation (exact)</label>
          <input id="filter-operation" name="operation" maxLength={500} value={values.operation ?? ''} />
        </div>
        <div>
          <label for="filter-min-duration">Minimum duration (ms)</label>
          <input
            id="filter-min-duration"
            name="min_duration_ms"
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={values.min_duration_ms ?? ''}
          />
        </div>
        <div>
          <label for="filter-max-duration">Maximum duration (ms)</label>
          <input
            id="filter-max-duration"
            name="max_duration_ms"
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={values.max_duration_ms ?? ''}
          />
        </div>
      </div>
      <div class="grid">
        <div>
          <label for="filter-from">Started from (UTC)</label>
          <input id="filter-from" name="from" type="datetime-local" step="1" value={values.from ?? ''} />
        </div>
        <div>
          <label for="filter-to">Started before (UTC)</label>
          <input id="filter-to" name="to" type="datetime-local" step="1" value={values.to ?? ''} />
        </div>
      </div>
      <div class="filter-actions">
        <button type="submit">Search traces</button>
        <a href={href('/traces', ctx.projectId)} class="secondary">
          Clear filters
        </a>
      </div>
    </form>
  );
}

function StatusText({ error }: { error: boolean }) {
  return error ? <span class="status-text error">error</span> : <span class="status-text">ok</span>;
}

function TraceTable({ ctx, result }: { ctx: PageContext; result: TraceSearchResult }) {
  return (
    <div class="overflow-auto">
      <table id="traces" class="records">
        <caption class="visually-hidden">Traces, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Trace</th>
            <th scope="col">Root operation</th>
            <th scope="col">Service</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Spans</th>
            <th scope="col">Status</th>
            <th scope="col">Services</th>
          </tr>
        </thead>
        <tbody>
          {result.items.map((t) => (
            <tr key={t.trace_id} data-trace-id={t.trace_id} data-error={String(t.error)}>
              <td data-label="Trace">
                <a href={href(`/traces/${encodeURIComponent(t.trace_id)}`, ctx.projectId)} class="trace-link">
                  <code>{t.trace_id}</code>
                </a>
              </td>
              <td data-label="Root operation">
                {t.root_operation}
                {t.root_orphan ? (
                  <span class="orphan-mark" title="The root names a parent span the trace does not contain">
                    {' '}
                    orphan
                  </span>
                ) : null}
              </td>
              <td data-label="Service">{t.root_service ?? '—'}</td>
              <td data-label="Started">{formatTime(t.started_at)}</td>
              <td class="number" data-label="Duration">
                {formatMs(t.duration_ms)}
              </td>
              <td class="number" data-label="Spans">
                {t.span_count}
              </td>
              <td data-label="Status">
                <StatusText error={t.error} />
              </td>
              <td class="trace-services" data-label="Services">
                {t.services.join(', ') || '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TraceResults({
  ctx,
  values,
  result,
}: {
  ctx: PageContext;
  values: TraceFilterValues;
  result: TraceSearchResult;
}) {
  const filtered = Object.keys(values).some((k) => k !== 'limit');
  if (result.items.length === 0) {
    return (
      <p id="no-traces">{filtered ? 'No trace matches these filters.' : 'This project has no traces yet.'}</p>
    );
  }
  // trace.search pages by limit (no cursor): "show more" asks again for more of the newest.
  const more = result.has_more ? nextLimit(result.limit) : undefined;
  return (
    <>
      <TraceTable ctx={ctx} result={result} />
      <p class="muted" role="status">
        {result.has_more
          ? `The ${result.items.length} newest matching traces.`
          : `${result.items.length} matching ${result.items.length === 1 ? 'trace' : 'traces'}.`}
      </p>
      {more !== undefined ? (
        <p>
          <a href={href('/traces', ctx.projectId, { ...values, limit: String(more) })} id="more-traces">
            Show more traces
          </a>
        </p>
      ) : null}
    </>
  );
}

export function TraceListPage({
  ctx,
  values,
  result,
  problem,
}: {
  ctx: PageContext;
  values: TraceFilterValues;
  result?: TraceSearchResult;
  problem?: ToolProblem;
}) {
  return (
    <Layout ctx={ctx} section="traces" title="Traces">
      <TraceFilterForm ctx={ctx} values={values} />
      <section aria-labelledby="results-heading">
        <h2 id="results-heading">Traces, newest first</h2>
        {problem ? <ProblemNotice problem={problem} /> : null}
        {result ? <TraceResults ctx={ctx} values={values} result={result} /> : null}
      </section>
    </Layout>
  );
}

function Swatch({ classes }: { classes: string }) {
  return (
    <svg viewBox="0 0 24 12" width="24" height="12" aria-hidden="true" focusable="false">
      <rect x="0" y="0" width="24" height="12" class={classes} />
    </svg>
  );
}

function Legend() {
  return (
    <ul class="waterfall-legend" aria-label="Bar colors">
      <li>
        <Swatch classes="span-bar kind-server" /> server span
      </li>
      <li>
        <Swatch classes="span-bar kind-client" /> client span
      </li>
      <li>
        <Swatch classes="span-bar kind-other" /> other kinds (internal, producer, consumer…)
      </li>
      <li>
        <Swatch classes="span-bar kind-other status-error" /> status error (any kind)
      </li>
    </ul>
  );
}

function SpanDetails({ span, depth }: { span: TraceSpan; depth: number }) {
  const attributes = Object.entries(span.attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return (
    <div class="span-details">
      <dl>
        <dt>Span id</dt>
        <dd>
          <code>{span.span_id}</code>
        </dd>
        <dt>Parent span id</dt>
        <dd>
          {span.parent_span_id ? <code>{span.parent_span_id}</code> : 'none'}
          {span.orphan ? ' (not in this trace: shown at the top, as an orphan)' : null}
        </dd>
        <dt>Service</dt>
        <dd>{span.service ?? '—'}</dd>
        <dt>Operation</dt>
        <dd>{span.operation}</dd>
        <dt>Kind</dt>
        <dd>{span.kind}</dd>
        <dt>Status</dt>
        <dd>{span.status}</dd>
        <dt>Start</dt>
        <dd>
          {formatSpanTime(span.start_time)} (+{formatMs(span.offset_ms)})
        </dd>
        <dt>Duration</dt>
        <dd>
          {formatMs(span.duration_ms)} (self {formatMs(span.self_ms)})
        </dd>
        <dt>Depth</dt>
        <dd>{depth}</dd>
        <dt>Sample rate</dt>
        <dd>{span.sample_rate}</dd>
        {span.user_id ? (
          <>
            <dt>User id</dt>
            <dd>{span.user_id}</dd>
          </>
        ) : null}
        {span.session_id ? (
          <>
            <dt>Session id</dt>
            <dd>{span.session_id}</dd>
          </>
        ) : null}
      </dl>
      {attributes.length > 0 ? (
        <table class="span-attributes">
          <caption>Attributes</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {attributes.map(([key, value]) => (
              <tr key={key}>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No attributes.</p>
      )}
    </div>
  );
}

function SpanRow({ row }: { row: WaterfallRow }) {
  const { span, depth } = row;
  const error = isError(span);
  return (
    <li
      class={`waterfall-row depth-${Math.min(depth, MAX_INDENT_DEPTH)}`}
      data-span-id={span.span_id}
      data-parent-span-id={span.parent_span_id ?? undefined}
      data-depth={depth}
      data-kind={span.kind}
      data-status={span.status}
      data-orphan={span.orphan ? 'true' : undefined}
    >
      <details>
        <summary>
          <span class="span-label">
            <span class="visually-hidden">{`Level ${depth + 1}: `}</span>
            {span.service ? <strong>{span.service}</strong> : null} {span.operation}
            {span.orphan ? <span class="orphan-mark"> orphan</span> : null}
            {error ? <span class="status-text error"> error</span> : null}
          </span>
          <span class="span-timeline">
            <svg
              viewBox={`0 0 ${AXIS_WIDTH} 12`}
              preserveAspectRatio="none"
              aria-hidden="true"
              focusable="false"
            >
              <rect x={row.x} y="0" width={row.width} height="12" class={barClasses(span)} />
            </svg>
          </span>
          <span class="span-duration">{formatMs(span.duration_ms)}</span>
        </summary>
        <SpanDetails span={span} depth={depth} />
      </details>
    </li>
  );
}

function Waterfall({ trace }: { trace: TraceGetResult }) {
  const { rows, axisMs } = layoutWaterfall(trace.spans, trace.duration_ms);
  return (
    <section aria-labelledby="waterfall-heading">
      <h2 id="waterfall-heading">Spans</h2>
      <p class="muted">
        Indented by parent, children by start time; bars on one time axis from the trace start. Open a span
        for its attributes.
      </p>
      <Legend />
      <div class="waterfall" id="waterfall" data-axis-ms={axisMs}>
        <div class="waterfall-head" aria-hidden="true">
          <span>Span</span>
          <span class="waterfall-ticks">
            <span>0 ms</span>
            <span>{formatMs(axisMs / 2)}</span>
            <span>{formatMs(axisMs)}</span>
          </span>
          <span class="span-duration">Duration</span>
        </div>
        <ol class="waterfall-rows">
          {rows.map((row) => (
            <SpanRow key={row.span.span_id} row={row} />
          ))}
        </ol>
      </div>
    </section>
  );
}

export function TraceWaterfallPage({ ctx, trace }: { ctx: PageContext; trace: TraceGetResult }) {
  return (
    <Layout ctx={ctx} section="traces" title="Trace">
      <p>
        <a href={href('/traces', ctx.projectId)}>← All traces</a>
      </p>
      <dl class="trace-facts">
        <dt>Trace id</dt>
        <dd>
          <code>{trace.trace_id}</code>
        </dd>
        <dt>Started</dt>
        <dd>{trace.started_at ? formatSpanTime(trace.started_at) : '—'}</dd>
        <dt>Duration</dt>
        <dd>{formatMs(trace.duration_ms)}</dd>
        <dt>Spans</dt>
        <dd>{trace.span_count}</dd>
        <dt>Status</dt>
        <dd>
          <StatusText error={trace.error} />
        </dd>
        <dt>Services</dt>
        <dd>{trace.services.join(', ') || '—'}</dd>
      </dl>
      {trace.truncated ? (
        <p role="status" class="notice warning" id="trace-truncated">
          {`This trace has ${trace.span_count} spans: the earliest ${countSpans(trace.spans)} are shown.`}
        </p>
      ) : null}
      <Waterfall trace={trace} />
    </Layout>
  );
}

function countSpans(spans: TraceSpan[]): number {
  return spans.reduce((n, s) => n + 1 + countSpans(s.children), 0);
}

/** The trace page when trace.get gave no trace: unknown id, capability off, gateway down. */
export function TraceProblemPage({ ctx, problem }: { ctx: PageContext; problem: ToolProblem }) {
  return (
    <Layout ctx={ctx} section="traces" title="Trace">
      <ProblemNotice problem={problem} />
      <p>
        <a href={href('/traces', ctx.projectId)}>← All traces</a>
      </p>
    </Layout>
  );
}
