import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '@svc/browser-testing';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callRest } from './support';

// The console's overview and its MCP Apps views in the system's Chromium against the whole stack:
// sign-in lands on the overview; each panel's numbers equal what the same tools answer the test
// over the same gateway (worked out here from those answers, not written down); each answer is
// drawn by the tool's view inside a sandboxed frame; the runner draws a tool that has a view and
// prints JSON for one that has none; the overview reads at 390 px. Screenshots go to
// apps/standalone/test-output/overview/ (not committed).
// The demo covers 10 days, so every record sits well inside the tools' 14-day window: a call a
// few seconds later counts the same records. No self-tracing: the console's own calls add no spans.

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'overview');
const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('overview browser tests skipped: no Chromium (set CHROMIUM_PATH)');

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DAY_MS = 86_400_000;
const PHONE = { width: 390, height: 844 };

let stack: SpawnedStack;
let browser: Browser;
let page: Page;
let consoleUrl: string;

beforeAll(async () => {
  if (!executablePath) return;
  mkdirSync(SHOTS, { recursive: true });
  stack = await spawnStack({
    env: { SVC_DEMO_DAYS: '10', SVC_DEMO_SIZE: '0.2', SVC_STANDALONE_SELF_TRACE: '0' },
  });
  consoleUrl = stack.ready.urls.console;
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(CONDITION_CEILING_MS);
  context.setDefaultNavigationTimeout(CONDITION_CEILING_MS);
  page = await context.newPage();
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await stack?.dispose();
});

/** A tool's answer to the test, over the same gateway, as the same person and project. */
async function tool<T>(name: string, input: Record<string, unknown>): Promise<T> {
  const answer = await callRest(stack.ready.urls.gateway, name, input, bearer(stack.ready.token!));
  expect(answer.status).toBe(200);
  return answer.body as T;
}

const overviewUrl = () => `${consoleUrl}/overview?project=${stack.ready.project_id}`;

/** Waits for every panel to have loaded (its tools answered), then for every view to have drawn. */
async function panelsLoaded(on: Page = page): Promise<void> {
  await on.waitForFunction(() => document.querySelectorAll('[data-panel-body][aria-busy]').length === 0);
  expect(await on.locator('[data-panel-state="failed"], [data-panel-state="unavailable"]').count()).toBe(0);
  await on.waitForFunction(
    () =>
      document.querySelectorAll('figure[data-tool-view]').length === 3 &&
      document.querySelectorAll('figure[data-tool-view-state="drawn"]').length === 3,
  );
}

const fields = (scope: string, field: string) =>
  page
    .locator(`${scope} data[data-field="${field}"]`)
    .evaluateAll((els) => els.map((e) => e.getAttribute('value')));

/** The JSON the console got for a panel (what its view was fed), without the window that moves with time. */
async function panelAnswer<T>(id: string): Promise<T & { window: { from: string; to: string } }> {
  return JSON.parse((await page.locator(`#answer-${id}-json`).textContent()) ?? '');
}
const withoutWindow = (answer: object) => {
  const { window: _window, ...rest } = answer as { window?: unknown };
  return rest;
};

/** The frame a panel's view is drawn in, once the view drew the answer. */
async function viewFrame(figure: string): Promise<Frame> {
  const iframe = page.locator(`${figure} iframe`);
  expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
  const frame = await (await iframe.elementHandle())!.contentFrame();
  await frame!.waitForSelector('#view h1');
  return frame!;
}

interface Release {
  version: string;
  found: boolean;
  sessions: number;
  crash_free_session_rate: number | null;
  score: number | null;
  grade: string | null;
}
interface Signature {
  signature: string;
  count: number;
  first_seen: string;
}
interface CrashStats {
  total: number;
  affected_users: number;
  signature_count: number;
  signatures: Signature[];
}
interface Operation {
  operation: string;
  p50_ms: number;
  p99_ms: number;
  error_rate: number;
}

describeInBrowser('the overview and tool views in Chromium', () => {
  it('lands on the overview after sign-in', async () => {
    const login = stack.ready.console_login!;
    await page.goto(`${consoleUrl}/login`);
    await page.getByLabel('Email').fill(login.email);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/overview$/);
    expect(await page.locator('h1').textContent()).toContain('Overview');
  });

  it('shows release health of the recent versions as release.health answers it, drawn by its view', async () => {
    await page.goto(overviewUrl());
    await panelsLoaded();
    await page.screenshot({ path: join(SHOTS, 'overview-1280.png'), fullPage: true });
    // Each panel on its own (scrolled into view: Chromium leaves frames below the window unpainted).
    for (const id of ['releases', 'crashes', 'operations'])
      await page.locator(`#panel-${id}`).screenshot({ path: join(SHOTS, `panel-${id}-1280.png`) });

    const dims = await tool<{ dimensions: { app_version: { values: { value: string }[] } } }>(
      'analytics.dimensions',
      { days: 14 },
    );
    // The five highest versions the app's events name, compared part by part as numbers.
    const parts = (v: string) => v.split('.').map((p) => Number.parseInt(p, 10) || 0);
    const newer = (a: string, b: string) => {
      const [x, y] = [parts(a), parts(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++)
        if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
      return 0;
    };
    const versions = dims.dimensions.app_version.values
      .map((v) => v.value)
      .sort(newer)
      .slice(0, 5);
    expect(versions.length).toBeGreaterThan(1);
    const health = await tool<{ releases: Release[] }>('release.health', {
      versions: versions.join(','),
      days: 14,
    });
    expect(withoutWindow(await panelAnswer('releases'))).toEqual(withoutWindow(health));

    const scope = '#panel-releases';
    expect(
      await page
        .locator(`${scope} li[data-version]`)
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-version'))),
    ).toEqual(versions);
    const found = health.releases.filter((r) => r.found);
    expect(await fields(scope, 'score')).toEqual(found.map((r) => String(r.score)));
    expect(await fields(scope, 'grade')).toEqual(found.map((r) => String(r.grade)));
    expect(await fields(scope, 'sessions')).toEqual(found.map((r) => String(r.sessions)));
    expect(await fields(scope, 'crash_free_session_rate')).toEqual(
      found.map((r) => String(r.crash_free_session_rate)),
    );

    // The view, in its sandboxed frame, drew the same scores; it cannot reach the console's cookies.
    const frame = await viewFrame(`${scope} figure`);
    for (const r of health.releases)
      expect(
        await frame
          .locator(`tr[data-row="score"] td[data-version="${r.version}"] span`)
          .getAttribute('data-value'),
      ).toBe(r.score === null ? '' : String(r.score));
    expect(
      await frame.evaluate(() => {
        try {
          return document.cookie;
        } catch {
          return 'no cookies: an opaque origin';
        }
      }),
    ).toBe('no cookies: an opaque origin');
  });

  it('shows the top crash issues and the new ones as crash.stats answers them, drawn by its view', async () => {
    const stats = await tool<CrashStats>('crash.stats', { days: 14 });
    const shown = await panelAnswer<CrashStats>('crashes');
    expect(withoutWindow(shown)).toEqual(withoutWindow(stats));
    const scope = '#panel-crashes';
    expect(await fields(scope, 'total')).toEqual([String(stats.total)]);
    expect(await fields(scope, 'affected_users')).toEqual([String(stats.affected_users)]);
    expect(await fields(scope, 'signature_count')).toEqual([String(stats.signature_count)]);
    const listed = (list: string) =>
      page
        .locator(`${scope} [data-list="${list}"] li`)
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-signature')));
    expect(await listed('top-issues')).toEqual(stats.signatures.slice(0, 5).map((s) => s.signature));
    // New: first seen within 7 days of the end of the window the console's call covered.
    const since = Date.parse(shown.window.to) - 7 * DAY_MS;
    const fresh = stats.signatures
      .filter((s) => Date.parse(s.first_seen) >= since)
      .sort((a, b) => b.first_seen.localeCompare(a.first_seen) || a.signature.localeCompare(b.signature));
    expect(await listed('new-issues')).toEqual(fresh.map((s) => s.signature));

    const frame = await viewFrame(`${scope} figure`);
    expect(await frame.locator('[data-field="total"]').textContent()).toBe(
      stats.total.toLocaleString('en-US'),
    );
  });

  it('shows the slowest operations as trace.aggregate answers them, drawn by its view', async () => {
    const aggregate = await tool<{ operations: Operation[] }>('trace.aggregate', { days: 14, limit: 100 });
    expect(withoutWindow(await panelAnswer('operations'))).toEqual(withoutWindow(aggregate));
    const slowest = [...aggregate.operations]
      .sort((a, b) => b.p99_ms - a.p99_ms || a.operation.localeCompare(b.operation))
      .slice(0, 5);
    expect(slowest.length).toBeGreaterThan(0);
    const scope = '#panel-operations';
    expect(
      await page
        .locator(`${scope} [data-list="slowest"] li`)
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-operation'))),
    ).toEqual(slowest.map((o) => o.operation));
    expect(await fields(scope, 'p99_ms')).toEqual(slowest.map((o) => String(o.p99_ms)));
    expect(await fields(scope, 'p50_ms')).toEqual(slowest.map((o) => String(o.p50_ms)));
    expect(await fields(scope, 'error_rate')).toEqual(slowest.map((o) => String(o.error_rate)));

    const frame = await viewFrame(`${scope} figure`);
    const drawn = await frame
      .locator('tr[data-operation]')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-operation'), r.getAttribute('data-p99')]));
    expect(drawn.sort()).toEqual(aggregate.operations.map((o) => [o.operation, String(o.p99_ms)]).sort());
  });

  it('links each panel to the runner with its call filled in and to the assistant with a question', async () => {
    const runner = page.locator('#panel-crashes a', { hasText: 'in the runner' });
    const assistant = new URL(
      (await page.locator('#panel-crashes a', { hasText: 'Ask the assistant' }).getAttribute('href'))!,
      consoleUrl,
    );
    expect(assistant.pathname).toBe('/assistant');
    expect(assistant.searchParams.get('q')).toMatch(/new/);
    await runner.click();
    await page.waitForURL(/\/tools\/crash\.stats\?/);
    expect(JSON.parse(await page.locator('#input-json').inputValue())).toEqual({ days: 14 });
  });

  it('draws a tool that has a view in the runner, and prints JSON for one that has none', async () => {
    await page.getByRole('button', { name: 'Run crash.stats' }).click();
    await page.waitForSelector('#tool-answer[data-tool-view-state="drawn"]');
    await viewFrame('#tool-answer');
    expect(await page.locator('#tool-result').isVisible()).toBe(false);
    await page.getByText('Show JSON').click();
    const stats = await tool<CrashStats>('crash.stats', { days: 14 });
    const shown = JSON.parse((await page.locator('#tool-result').textContent()) ?? '');
    expect(withoutWindow(shown)).toEqual(withoutWindow(stats));
    await page.screenshot({ path: join(SHOTS, 'runner-view.png'), fullPage: true });

    await page.goto(`${consoleUrl}/tools/log.recent?project=${stack.ready.project_id}`);
    await page.getByRole('button', { name: 'Run log.recent' }).click();
    await page.waitForSelector('#tool-result');
    expect(await page.locator('#tool-result').isVisible()).toBe(true);
    expect(await page.locator('iframe').count()).toBe(0);
    expect(await page.locator('[data-tool-view]').count()).toBe(0);
  });

  it("forwards a view's own tool call through the console: memory-growth draws a session's samples", async () => {
    await page.goto(`${consoleUrl}/tools/apm.memory_growth?project=${stack.ready.project_id}`);
    await page.getByRole('button', { name: 'Run apm.memory_growth' }).click();
    await page.waitForSelector('#tool-answer[data-tool-view-state="drawn"]');
    const growth = JSON.parse((await page.locator('#tool-result').textContent()) ?? '') as {
      items: { session_id: string; samples: number }[];
    };
    const first = growth.items[0];
    expect(first).toBeDefined();
    // The view asked its host for apm.search; the test asks the gateway the same.
    const search = await tool<{ items: { session_id: string }[] }>('apm.search', {
      name: 'memory_mb',
      search: `session_id=${first!.session_id}`,
      limit: 1000,
    });
    const own = search.items.filter((s) => s.session_id === first!.session_id).length;
    const frame = await viewFrame('#tool-answer');
    const found = frame.locator(`[data-samples][data-session="${first!.session_id}"] p[data-found]`);
    await found.waitFor();
    expect(await found.getAttribute('data-found')).toBe(String(own));
    expect(own).toBe(first!.samples);
  });

  it('reads at 390 px: nothing wider than the phone, every view framed within it', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(overviewUrl());
    await panelsLoaded();
    const problems = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const found: string[] = [];
      if (document.documentElement.scrollWidth > width)
        found.push(`the page is ${document.documentElement.scrollWidth} px wide in ${width}`);
      for (const el of document.querySelectorAll('main iframe, main li, main h2, main p')) {
        const r = el.getBoundingClientRect();
        if (r.left < -0.5 || r.right > width + 0.5)
          found.push(`${el.tagName} ${el.textContent?.slice(0, 40)}: ${r.left}..${r.right}`);
      }
      return found;
    });
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'overview-390.png'), fullPage: true });
  });

  it('passes axe-core at 1280 and 390 px with its panels and views drawn: no serious or critical violation', async () => {
    // A context of its own with the same cookies: axe is injected as a script, which the console's
    // CSP (rightly) refuses in the other tests' context.
    const audit = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
    });
    audit.setDefaultTimeout(CONDITION_CEILING_MS);
    const checker = await audit.newPage();
    const found: Record<string, string[]> = {};
    for (const size of [{ width: 1280, height: 900 }, PHONE]) {
      await checker.setViewportSize(size);
      await checker.goto(overviewUrl());
      await panelsLoaded(checker);
      await checker.addScriptTag({ path: AXE });
      const violations = await checker.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
          }
        ).axe;
        const results = await axe.run();
        return results.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes.length})`);
      });
      if (violations.length > 0) found[String(size.width)] = violations;
    }
    await audit.close();
    expect(found).toEqual({});
  });
});
