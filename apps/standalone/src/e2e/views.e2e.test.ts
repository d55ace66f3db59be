import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { findChromium } from '@svc/browser-testing';
import { FUNNEL_STEPS } from '@svc/demo-data';
import { viewHostBundle } from '@svc/mcp-views/testing';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, connectMcp, connectModernMcp } from './support';

// The MCP Apps views served by the whole stack (`pnpm start` as a process): a 2026-07-28 client
// reads a view's HTML with resources/read at the gateway and a real answer of its tool with
// tools/call, then Chromium loads them the way a host does (the extension's AppBridge around a
// sandboxed iframe holding the resource) and the DOM is read back against the answer's numbers.
// Screenshots go to apps/standalone/test-output/views/ (not committed).

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'views');
const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('views browser tests skipped: no Chromium (set CHROMIUM_PATH)');

let stack: SpawnedStack;
let mcp: ModernClient;
let browser: Browser;
let page: Page;
let host: string;

beforeAll(async () => {
  if (!executablePath) return;
  mkdirSync(SHOTS, { recursive: true });
  stack = await spawnStack();
  mcp = await connectModernMcp(stack.ready.urls.mcp, bearer(stack.ready.token!));
  [browser, host] = await Promise.all([
    chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS }),
    viewHostBundle(),
  ]);
  page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  page.setDefaultTimeout(CONDITION_CEILING_MS);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await mcp?.close();
  await stack?.dispose();
});

interface ToolAnswer {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
}

/** The view a tool names in tools/list, read over MCP. */
async function viewOf(tool: string): Promise<{ uri: string; html: string }> {
  const { tools } = await mcp.listTools();
  const meta = tools.find((t) => t.name === tool)?._meta as { ui?: { resourceUri?: string } } | undefined;
  const uri = meta?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view`);
  const read = await mcp.readResource({ uri });
  const [content] = read.contents as { uri: string; mimeType: string; text: string; _meta: unknown }[];
  expect(content).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' });
  expect(content!._meta).toMatchObject({ ui: { csp: { connectDomains: [] } } });
  return { uri, html: content!.text };
}

async function call(tool: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await mcp.callTool({ name: tool, arguments: args });
  expect(result.isError).toBeFalsy();
  return {
    content: result.content as ToolAnswer['content'],
    structuredContent: result.structuredContent as Record<string, unknown>,
  };
}

/** Mounts the view's HTML in the host page, sends it the answer and waits for it to draw. */
async function mount(html: string, answer: ToolAnswer): Promise<Frame> {
  await page.setContent(
    '<!doctype html><html lang="en"><head><title>host</title></head><body></body></html>',
  );
  await page.addScriptTag({ content: host });
  await page.evaluate((options) => window.mountView(options), {
    html,
    result: answer,
    theme: 'light' as const,
  });
  const frame = page.frames().find((f) => f !== page.mainFrame())!;
  await frame.waitForSelector('#view h1');
  return frame;
}

declare global {
  interface Window {
    mountView(options: { html: string; result: ToolAnswer; theme: 'light' | 'dark' }): Promise<void>;
  }
}

describeInBrowser('MCP Apps views from the running stack', () => {
  it('lists every view in resources/list, none with its HTML', async () => {
    const { resources } = await mcp.listResources();
    const { tools } = await mcp.listTools();
    const named = new Set(
      tools
        .map((t) => (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri)
        .filter(Boolean),
    );
    expect(resources.map((r) => r.uri).sort()).toEqual([...named].sort());
    expect(resources.every((r) => !('text' in r))).toBe(true);
  });

  it('trace.get: a demo trace drawn as a waterfall, bars on one axis, the answer’s numbers', async () => {
    const { html } = await viewOf('trace.get');
    const found = (await call('trace.search', { limit: 50 })).structuredContent as {
      items: { trace_id: string; span_count: number }[];
    };
    const traceId = [...found.items].sort((a, b) => b.span_count - a.span_count)[0]!.trace_id;
    const answer = await call('trace.get', { trace_id: traceId });
    type Span = {
      span_id: string;
      offset_ms: number;
      duration_ms: number;
      self_ms: number;
      children: Span[];
    };
    const trace = answer.structuredContent as { duration_ms: number; span_count: number; spans: Span[] };
    const expected: { span: Span; depth: number }[] = [];
    const visit = (spans: Span[], depth: number) => {
      for (const span of [...spans].sort((a, b) => a.offset_ms - b.offset_ms)) {
        expected.push({ span, depth });
        visit(span.children, depth + 1);
      }
    };
    visit(trace.spans, 0);
    expect(expected.length).toBeGreaterThan(1);
    const axis = Math.max(
      trace.duration_ms,
      ...expected.map(({ span }) => span.offset_ms + span.duration_ms),
    );

    const frame = await mount(html, answer);
    const rows = await frame.locator('li[data-span-id]').evaluateAll((items) =>
      items.map((li) => {
        const rect = li.querySelector('rect')!;
        return {
          id: li.getAttribute('data-span-id'),
          depth: Number(li.getAttribute('data-depth')),
          self: Number(li.getAttribute('data-self-ms')),
          x: Number(rect.getAttribute('x')),
          width: Number(rect.getAttribute('width')),
        };
      }),
    );
    expect(rows.map((r) => [r.id, r.depth])).toEqual(
      expected.map(({ span, depth }) => [span.span_id, depth]),
    );
    rows.forEach((row, i) => {
      const { span } = expected[i]!;
      const width = Math.min(1000, Math.max(3, (span.duration_ms / axis) * 1000));
      expect(row.width).toBeCloseTo(width, 1);
      expect(row.x).toBeCloseTo(Math.min((span.offset_ms / axis) * 1000, 1000 - width), 1);
      expect(row.self).toBe(span.self_ms);
    });
    expect(Number((await frame.locator('[data-field="span_count"]').textContent())?.replace(/,/g, ''))).toBe(
      trace.span_count,
    );
    await page.screenshot({ path: join(SHOTS, 'trace-waterfall.png'), fullPage: true });
  });

  it('a client without Apps support (SDK 1.32.2, 2025-11-25) gets the same text and structured content', async () => {
    const found = (await call('trace.search', { limit: 5 })).structuredContent as {
      items: { trace_id: string }[];
    };
    const args = { trace_id: found.items[0]!.trace_id };
    const legacy = await connectMcp(stack.ready.urls.mcp, bearer(stack.ready.token!));
    try {
      const { tools } = await legacy.listTools();
      const meta = tools.find((t) => t.name === 'trace.get')?._meta as
        | { ui?: { resourceUri?: string } }
        | undefined;
      expect(meta?.ui?.resourceUri).toBe((await viewOf('trace.get')).uri);
      const plain = await legacy.callTool({ name: 'trace.get', arguments: args });
      const modern = await call('trace.get', args);
      expect(plain.isError).toBeFalsy();
      expect(plain.content).toEqual(modern.content);
      expect(plain.structuredContent).toEqual(modern.structuredContent);
    } finally {
      await legacy.close();
    }
  });

  it('analytics.funnel: the demo funnel drawn as a bar per step with its conversions', async () => {
    const { html } = await viewOf('analytics.funnel');
    const answer = await call('analytics.funnel', { steps: [...FUNNEL_STEPS], days: 14 });
    const steps = (
      answer.structuredContent as { steps: { users: number; conversion_from_previous: number | null }[] }
    ).steps;
    expect(steps[0]!.users).toBeGreaterThan(0);
    const max = Math.max(...steps.map((s) => s.users));

    const frame = await mount(html, answer);
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
    const pct = (r: number | null) => (r === null ? '–' : `${(r * 100).toFixed(1)}%`);
    expect(await frame.locator('tr[data-step] td:nth-child(5)').allTextContents()).toEqual(
      steps.map((s) => pct(s.conversion_from_previous)),
    );
    await page.screenshot({ path: join(SHOTS, 'funnel.png'), fullPage: true });
  });
});
