import { AXIS_WIDTH, MIN_BAR_WIDTH, type TraceSpan } from '@svc/mcp-views/waterfall-layout';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import { TRACE_PAGE_SIZE } from './trace-filters';
import {
  formatMs,
  MAX_INDENT_DEPTH,
  type TraceGetResult,
  TraceListPage,
  type TraceSearchResult,
  type TraceSummary,
  TraceWaterfallPage,
} from './traces';

// The pages rendered to HTML as the server sends them, read back with a few patterns: the markup
// is ours and regular, and what matters is in attributes (data-*, the rect's geometry and class).

const ctx = TEST_PAGE_CONTEXT;

const T0 = Date.UTC(2025, 4, 1, 12, 0, 0);

function span(
  id: string,
  parent: string | null,
  offset: number,
  duration: number,
  extra: Partial<TraceSpan> = {},
): TraceSpan {
  return {
    span_id: id,
    parent_span_id: parent,
    operation: `GET /${id}`,
    service: 'checkout',
    kind: 'internal',
    status: 'ok',
    start_time: new Date(T0 + offset).toISOString(),
    offset_ms: offset,
    duration_ms: duration,
    self_ms: duration,
    orphan: false,
    sample_rate: 1,
    user_id: null,
    session_id: null,
    attributes: {},
    children: [],
    ...extra,
  };
}

/** Attributes of an opening tag, by name (values unescaped for &amp; and &quot; only). */
function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/\s([a-zA-Z:-]+)="([^"]*)"/g)) {
    out[m[1]!] = m[2]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  }
  return out;
}

/** Each waterfall row: the li's attributes and its bar's. */
function rowsOf(html: string) {
  return [...html.matchAll(/<li (class="waterfall-row[^>]*)>([\s\S]*?)<\/details><\/li>/g)].map((m) => ({
    li: attrs(` ${m[1]}`),
    rect: attrs(/<rect[^>]*>/.exec(m[2]!)![0]),
    body: m[2]!,
  }));
}

describe('the waterfall page', () => {
  // A request through three services: the root server span calls a client span, whose server
  // span fails; an internal span; and an orphan whose parent never arrived.
  const root = span('root', null, 0, 200, { kind: 'server', operation: 'POST /checkout' });
  const call = span('call', 'root', 20, 120, { kind: 'client' });
  const remote = span('remote', 'call', 30, 100, {
    kind: 'server',
    status: 'error',
    service: 'payments',
    attributes: { 'http.status_code': '500', note: '<script>alert(1)</script>' },
  });
  const local = span('local', 'root', 5, 10);
  const orphan = span('orphan', 'gone', 150, 50, { kind: 'consumer', orphan: true });
  call.children = [remote];
  root.children = [call, local];
  const trace: TraceGetResult = {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    found: true,
    started_at: new Date(T0).toISOString(),
    duration_ms: 200,
    span_count: 5,
    error: true,
    services: ['checkout', 'payments'],
    truncated: false,
    spans: [root, orphan],
    has_more: false,
    summary: [],
    critical_path: [],
    error_spans: [],
    error_span_count: 1,
  };
  const html = renderToString(h(TraceWaterfallPage, { ctx, trace }));
  const rows = rowsOf(html);

  it('has one row per span in tree order, with ids, parent, depth, kind and status', () => {
    expect(rows.map((r) => [r.li['data-span-id'], r.li['data-parent-span-id'], r.li['data-depth']])).toEqual([
      ['root', undefined, '0'],
      ['local', 'root', '1'],
      ['call', 'root', '1'],
      ['remote', 'call', '2'],
      ['orphan', 'gone', '0'],
    ]);
    const remoteRow = rows[3]!;
    expect(remoteRow.li['data-kind']).toBe('server');
    expect(remoteRow.li['data-status']).toBe('error');
    expect(remoteRow.li.class).toBe('waterfall-row depth-2');
  });

  it('colors bars by kind, and red for an error whatever the kind', () => {
    const classOf = Object.fromEntries(rows.map((r) => [r.li['data-span-id'], r.rect.class]));
    expect(classOf).toEqual({
      root: 'span-bar kind-server',
      local: 'span-bar kind-other',
      call: 'span-bar kind-client',
      remote: 'span-bar kind-server status-error',
      orphan: 'span-bar kind-other',
    });
  });

  it('draws each bar from its offset for its duration on the trace axis', () => {
    const spans = [root, local, call, remote, orphan];
    for (const [i, r] of rows.entries()) {
      const s = spans[i]!;
      expect(Number(r.rect.x)).toBeCloseTo((s.offset_ms / trace.duration_ms) * AXIS_WIDTH, 2);
      expect(Number(r.rect.width)).toBeCloseTo(
        Math.max(MIN_BAR_WIDTH, (s.duration_ms / trace.duration_ms) * AXIS_WIDTH),
        2,
      );
    }
    expect(html).toContain(`viewBox="0 0 ${AXIS_WIDTH} 12" preserveAspectRatio="none"`);
  });

  it('marks the orphan, says error in words, and lists every attribute escaped', () => {
    expect(rows[4]!.li['data-orphan']).toBe('true');
    expect(rows[4]!.body).toContain('orphan');
    expect(rows[3]!.body).toContain('<span class="status-text error"> error</span>');
    expect(rows[3]!.body).toContain('<code>http.status_code</code></th><td>500</td>');
    expect(rows[3]!.body).toContain('&lt;script>alert(1)&lt;/script>');
    expect(html).not.toContain('<script>alert(1)');
    expect(rows[0]!.body).toContain('No attributes.');
  });

  it('opens a span with a native details element: ids, service, kind, status, start, duration', () => {
    const body = rows[3]!.body;
    expect(body).toMatch(/^<details><summary>/);
    for (const text of [
      '<code>remote</code>',
      '<code>call</code>',
      'payments',
      'server',
      'error',
      '2025-05-01 12:00:00.030 UTC',
      formatMs(100),
    ])
      expect(body).toContain(text);
  });

  it('has a legend for every color, a link back to the list, and no style attribute', () => {
    const legend = /<ul class="waterfall-legend"[\s\S]*?<\/ul>/.exec(html)![0];
    for (const classes of ['kind-server', 'kind-client', 'kind-other', 'status-error'])
      expect(legend).toContain(classes);
    expect(html).toContain('href="/traces?project=prj_1"');
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('stops indenting at the deepest step the stylesheet has, keeping the depth', () => {
    let deepest = span('d0', null, 0, 1);
    const top = deepest;
    for (let i = 1; i <= MAX_INDENT_DEPTH + 3; i++) {
      const child = span(`d${i}`, `d${i - 1}`, i, 1);
      deepest.children = [child];
      deepest = child;
    }
    const deep = rowsOf(renderToString(h(TraceWaterfallPage, { ctx, trace: { ...trace, spans: [top] } })));
    const last = deep[deep.length - 1]!;
    expect(last.li['data-depth']).toBe(String(MAX_INDENT_DEPTH + 3));
    expect(last.li.class).toBe(`waterfall-row depth-${MAX_INDENT_DEPTH}`);
  });

  it('says when the trace was cut', () => {
    const cut = renderToString(
      h(TraceWaterfallPage, { ctx, trace: { ...trace, truncated: true, span_count: 9000 } }),
    );
    expect(cut).toContain('This trace has 9000 spans: the earliest 5 are shown.');
  });
});

describe('the trace list page', () => {
  const summary = (id: string, extra: Partial<TraceSummary> = {}): TraceSummary => ({
    trace_id: id.padEnd(32, '0'),
    started_at: new Date(T0).toISOString(),
    duration_ms: 1234.5,
    span_count: 7,
    error: false,
    root_operation: 'GET /cart',
    root_service: 'web',
    root_orphan: false,
    services: ['api', 'web'],
    ...extra,
  });
  const result: TraceSearchResult = {
    items: [summary('a1', { error: true, root_orphan: true }), summary('b2')],
    limit: 2,
    has_more: true,
  };
  const values = { status: 'error', min_duration_ms: '100', limit: '2' };
  const html = renderToString(h(TraceListPage, { ctx, values, result }));

  it('keeps the filters in a GET form, every field labelled, values as given', () => {
    const form = /<form method="get" action="\/traces" class="trace-filters"[\s\S]*?<\/form>/.exec(html)![0];
    expect(form).toContain('<input type="hidden" name="project" value="prj_1"/>');
    const ids = [...form.matchAll(/<(?:input|select)[^>]*\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(ids).toEqual([
      'filter-user',
      'filter-session',
      'filter-status',
      'filter-operation',
      'filter-min-duration',
      'filter-max-duration',
      'filter-from',
      'filter-to',
    ]);
    for (const id of ids) expect(form).toContain(`<label for="${id}">`);
    expect(form).toContain('<option value="error" selected>');
    expect(form).toMatch(/name="min_duration_ms"[^>]*value="100"/);
  });

  it('lists each trace with a link to its waterfall, its status in words, headers with scope', () => {
    const tableRows = [
      ...html.matchAll(/<tr data-trace-id="([0-9a-f]+)" data-error="(\w+)">([\s\S]*?)<\/tr>/g),
    ];
    expect(tableRows.map((m) => [m[1], m[2]])).toEqual([
      [result.items[0]!.trace_id, 'true'],
      [result.items[1]!.trace_id, 'false'],
    ]);
    expect(tableRows[0]![3]).toContain(`href="/traces/${result.items[0]!.trace_id}?project=prj_1"`);
    expect(tableRows[0]![3]).toContain('orphan');
    expect(tableRows[0]![3]).toContain('<span class="status-text error">error</span>');
    expect(tableRows[1]![3]).toContain(formatMs(1234.5));
    expect(html.match(/<th scope="col">/g)).toHaveLength(8);
  });

  it('offers the next page with the same filters when the tool has more', () => {
    expect(html).toContain(
      `href="/traces?project=prj_1&amp;status=error&amp;min_duration_ms=100&amp;limit=${result.limit + TRACE_PAGE_SIZE}" id="more-traces"`,
    );
    const last = renderToString(h(TraceListPage, { ctx, values, result: { ...result, has_more: false } }));
    expect(last).not.toContain('more-traces');
  });

  it('shows a problem as an alert, and says when nothing matched', () => {
    const problem = renderToString(
      h(TraceListPage, {
        ctx,
        values: {},
        problem: { status: 503, message: 'The core service is unavailable.' },
      }),
    );
    expect(problem).toContain(
      '<p role="alert" class="notice error" data-status="503">The core service is unavailable.</p>',
    );
    expect(problem).not.toContain('<table');
    const none = renderToString(
      h(TraceListPage, { ctx, values, result: { items: [], limit: 50, has_more: false } }),
    );
    expect(none).toContain('No trace matches these filters.');
  });
});

describe('formatMs', () => {
  it('writes durations in ms below a second, in seconds above', () => {
    expect([formatMs(0), formatMs(0.25), formatMs(12.345), formatMs(999), formatMs(1500)]).toEqual([
      '0 ms',
      '0.25 ms',
      '12.3 ms',
      '999.0 ms',
      '1.50 s',
    ]);
  });
});
