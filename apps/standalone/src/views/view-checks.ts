import type { Frame, Page } from 'playwright-core';

// The DOM checks that the views' browser test (a core in process) and the views e2e test (the
// spawned stack) both make: mounting a view in the host page, the waterfall against trace.get and
// the funnel against analytics.funnel. Expected values are worked out here from the tool's answer.

export interface ToolAnswer {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
}

declare global {
  interface Window {
    mountView(options: {
      html: string;
      result: ToolAnswer;
      theme: 'light' | 'dark';
      forwardsTools?: boolean;
    }): Promise<void>;
  }
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });
/** How the views write a count or a measurement. */
export const num = (n: number) => grouped.format(n);
/** How the views write a 0..1 ratio. */
export const pct = (r: number | null) => (r === null ? '–' : `${(r * 100).toFixed(1)}%`);

/**
 * Loads `html` the way a host does (`hostScript`: the view host bundle of @svc/mcp-views/testing,
 * the extension's AppBridge around a sandboxed iframe), sends it `result` and waits for it to draw.
 * `forwardsTools`: whether the host announces serverTools (forwards the view's tool calls).
 */
export async function mountInHost(
  page: Page,
  hostScript: string,
  html: string,
  result: ToolAnswer,
  theme: 'light' | 'dark' = 'light',
  forwardsTools = true,
): Promise<Frame> {
  await page.setContent(
    '<!doctype html><html lang="en"><head><title>host</title></head><body></body></html>',
  );
  await page.addScriptTag({ content: hostScript });
  await page.evaluate((options) => window.mountView(options), { html, result, theme, forwardsTools });
  const frame = page.frames().find((f) => f !== page.mainFrame())!;
  await frame.waitForSelector('#view h1');
  return frame;
}

interface Span {
  span_id: string;
  offset_ms: number;
  duration_ms: number;
  self_ms: number;
  kind: string;
  status: string;
  children: Span[];
}

/** The console's colour rule: red error, green server, blue client, gray other. */
const colourOf = (span: Span) =>
  span.status === 'error'
    ? 'status-error'
    : span.kind === 'server'
      ? 'kind-server'
      : span.kind === 'client'
        ? 'kind-client'
        : 'kind-other';

/**
 * The waterfall against trace.get's answer: rows depth first (children by start), each bar on the
 * trace's one time axis (at least 3 of 1000 units wide), its colour, its self time.
 * Returns the spans in row order.
 */
export async function expectWaterfall(frame: Frame, answer: Record<string, unknown>): Promise<Span[]> {
  const trace = answer as { duration_ms: number; span_count: number; spans: Span[] };
  const expected: { span: Span; depth: number }[] = [];
  const visit = (spans: Span[], depth: number) => {
    for (const span of [...spans].sort((a, b) => a.offset_ms - b.offset_ms)) {
      expected.push({ span, depth });
      visit(span.children, depth + 1);
    }
  };
  visit(trace.spans, 0);
  const axis = Math.max(trace.duration_ms, ...expected.map(({ span }) => span.offset_ms + span.duration_ms));
  const rows = await frame.locator('li[data-span-id]').evaluateAll((items) =>
    items.map((li) => {
      const rect = li.querySelector('rect')!;
      return {
        id: li.getAttribute('data-span-id'),
        depth: Number(li.getAttribute('data-depth')),
        self: Number(li.getAttribute('data-self-ms')),
        x: Number(rect.getAttribute('x')),
        width: Number(rect.getAttribute('width')),
        classes: rect.getAttribute('class') ?? '',
      };
    }),
  );
  expect(rows.map((r) => [r.id, r.depth])).toEqual(expected.map(({ span, depth }) => [span.span_id, depth]));
  rows.forEach((row, i) => {
    const { span } = expected[i]!;
    const width = Math.min(1000, Math.max(3, (span.duration_ms / axis) * 1000));
    expect(row.width).toBeCloseTo(width, 1);
    expect(row.x).toBeCloseTo(Math.min((span.offset_ms / axis) * 1000, 1000 - width), 1);
    expect(row.self).toBe(span.self_ms);
    expect(row.classes).toContain(colourOf(span));
  });
  expect(await frame.locator('[data-field="span_count"]').textContent()).toBe(num(trace.span_count));
  return expected.map(({ span }) => span);
}

/**
 * The funnel's event names as laid out: the cell's text, the label's title (the full name), and the
 * words a line break splits (a range over one word has boxes on more than one line).
 */
export const eventNameCells = (frame: Frame) =>
  frame.locator('tr[data-step] td:nth-child(2)').evaluateAll((tds) =>
    tds.map((td) => {
      const split: string[] = [];
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) split.push(word[0]);
        }
      }
      return { text: td.textContent, title: td.querySelector('[title]')?.getAttribute('title'), split };
    }),
  );

/**
 * The funnel against analytics.funnel's answer: a bar per step on the scale of the largest, the
 * conversion from the previous step as written, and each event name whole (text and title) with
 * no word broken across lines.
 */
export async function expectFunnel(frame: Frame, answer: Record<string, unknown>): Promise<void> {
  const steps = (
    answer as { steps: { event_name: string; users: number; conversion_from_previous: number | null }[] }
  ).steps;
  const max = Math.max(...steps.map((s) => s.users));
  const rows = await frame
    .locator('tr[data-step]')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        Number(tr.getAttribute('data-users')),
        Number(tr.querySelector('rect')!.getAttribute('width')),
      ]),
    );
  expect(rows.map(([users]) => users)).toEqual(steps.map((s) => s.users));
  for (const [users, width] of rows) expect(width).toBeCloseTo((users! / max) * 1000, 3);
  expect(await frame.locator('tr[data-step] td:nth-child(5)').allTextContents()).toEqual(
    steps.map((s) => pct(s.conversion_from_previous)),
  );
  expect(await eventNameCells(frame)).toEqual(
    steps.map((s) => ({ text: s.event_name, title: s.event_name, split: [] })),
  );
}
