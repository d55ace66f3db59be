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
import { expectFunnel, expectWaterfall, mountInHost, type ToolAnswer } from '../views/view-checks';
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
  // The host forwards a view's tool calls to the gateway over MCP, as a host forwards them to its server.
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) =>
    mcp.callTool({ name: params.name, arguments: params.arguments ?? {} }),
  );
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await mcp?.close();
  await stack?.dispose();
});

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
const mount = (html: string, answer: ToolAnswer): Promise<Frame> => mountInHost(page, host, html, answer);

/**
 * The page with its view, whole. Chromium leaves a frame's content below the viewport unpainted in
 * a page screenshot, so the viewport grows to the frame's bottom for it.
 */
async function screenshot(file: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 900, height: 700 };
  const bottom = await page.locator('iframe').evaluate((el) => el.getBoundingClientRect().bottom);
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.ceil(bottom)) });
  await page.screenshot({ path: join(SHOTS, file), fullPage: true });
  await page.setViewportSize(viewport);
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
    // Beside the views: the investigation guides' SKILL.md files (the Skills extension).
    const uris = resources.map((r) => r.uri);
    const views = uris.filter((uri) => uri.startsWith('ui://'));
    const others = uris.filter((uri) => !uri.startsWith('ui://'));
    expect(views.sort()).toEqual([...named].sort());
    for (const uri of others) expect(uri).toMatch(/^skill:\/\/[a-z-]+\/SKILL\.md$/);
    expect(resources.every((r) => !('text' in r))).toBe(true);
  });

  it('trace.get: a demo trace drawn as a waterfall, bars on one axis, the answer’s numbers', async () => {
    const { html } = await viewOf('trace.get');
    const found = (await call('trace.search', { limit: 50 })).structuredContent as {
      items: { trace_id: string; span_count: number }[];
    };
    const traceId = [...found.items].sort((a, b) => b.span_count - a.span_count)[0]!.trace_id;
    const answer = await call('trace.get', { trace_id: traceId });
    expect((answer.structuredContent as { span_count: number }).span_count).toBeGreaterThan(1);
    await expectWaterfall(await mount(html, answer), answer.structuredContent);
    await screenshot('trace-waterfall.png');
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
    const steps = (answer.structuredContent as { steps: { users: number }[] }).steps;
    expect(steps[0]!.users).toBeGreaterThan(0);
    await expectFunnel(await mount(html, answer), answer.structuredContent);
    await screenshot('funnel.png');
  });

  it("apm.memory_growth: the first session's samples, fetched by the view through the gateway, with the fitted line", async () => {
    const { html } = await viewOf('apm.memory_growth');
    const answer = await call('apm.memory_growth', { days: 14, limit: 20 });
    const growth = answer.structuredContent as {
      items: { session_id: string; samples: number; slope_mb_per_min: number }[];
    };
    const first = growth.items[0];
    if (!first) throw new Error('the demo project has no session with growing memory');
    const frame = await mount(html, answer);
    await frame.waitForFunction(
      (id) => (document.querySelector('section[data-samples]') as HTMLElement | null)?.dataset.session === id,
      first.session_id,
    );
    expect(await frame.locator('section[data-samples] circle').count()).toBe(first.samples);
    expect(await frame.locator('section[data-samples] line[data-slope]').getAttribute('data-slope')).toBe(
      String(first.slope_mb_per_min),
    );
    await screenshot('memory-growth.png');
  });
});
