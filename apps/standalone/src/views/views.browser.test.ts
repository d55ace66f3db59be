import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { findChromium } from '@svc/browser-testing';
import { FUNNEL_STEPS, iterateDemoBatches, LEAKY_RELEASE } from '@svc/demo-data';
import { listViewResources, toolViewMetas, type ViewName } from '@svc/mcp-views';
import { viewHostBundle } from '@svc/mcp-views/testing';
import { type LoopbackCore, startLoopbackCore } from '@svc/observability-core/testing';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { CONDITION_CEILING_MS } from '../testing/wait-on-progress';
import { eventNameCells, expectFunnel, expectWaterfall, mountInHost, num, pct } from './view-checks';

// Each view loaded the way a host loads it (the extension's AppBridge around a sandboxed iframe
// holding the resource), fed the answer of the real tool on a real core with the demo project and
// hostile text ingested, then read back: the DOM against the tool's numbers, the hostile text as
// text, axe-core, and a screenshot of each under test-output/. Clicks are the element's own
// click(): the frame resizes to its content as it draws, which playwright's pointer waits on.
// It lives here, not in @svc/mcp-views, because it runs the core: the catalog depends on the views
// and the core on the catalog, so the views' package cannot depend on the core.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const KEY = { keyId: 'key_views', secret: 'secret-views-0123456789', projectId: 'proj_views' };
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/views-browser/', import.meta.url));
const XSS =
  '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=1</script>';
const XSS_TRACE = 'f'.repeat(32);
const XSS_SESSION = `sess ${XSS}`;
const XSS_EVENT = `evt ${XSS}`;
const XSS_CRASH = `Crash${XSS}`;
const THEMES = ['light', 'dark'] as const;
const MISMATCH_SESSION = 'sess-mismatch';
const SHADOW_SAMPLES = 998;

const executable = findChromium();
const describeInBrowser = executable ? describe : describe.skip;

const iso = (ms: number) => new Date(ms).toISOString();

/** Records with attacker-controlled text in every field a view writes out. */
function hostileRecords() {
  const spans = [
    { span_id: 'a'.repeat(16), kind: 'server', status: 'ok', duration_ms: 120, offset: 0, parent: undefined },
    {
      span_id: 'b'.repeat(16),
      kind: 'client',
      status: 'error',
      duration_ms: 40,
      offset: 10,
      parent: 'a'.repeat(16),
    },
    {
      span_id: 'c'.repeat(16),
      kind: 'internal',
      status: 'ok',
      duration_ms: 0.5,
      offset: 70,
      parent: 'b'.repeat(16),
    },
  ].map((s) => ({
    trace_id: XSS_TRACE,
    span_id: s.span_id,
    ...(s.parent ? { parent_span_id: s.parent } : {}),
    kind: s.kind,
    status: s.status,
    operation: `op ${XSS}`,
    service: `svc ${XSS}`,
    start_time: iso(NOW - 3_600_000 + s.offset),
    duration_ms: s.duration_ms,
    attributes: { [`key ${XSS}`]: `value ${XSS}` },
  }));
  const events = [0, 1, 2].map((i) => ({
    timestamp: iso(NOW - 7_200_000 + i * 1000),
    event_name: XSS_EVENT,
    user_id: `user ${XSS} ${i}`,
  }));
  const metrics = [0, 1, 2, 3].map((i) => ({
    timestamp: iso(NOW - 3_600_000 + i * 60_000),
    name: 'memory_mb',
    value: 100 + 1000 * i,
    unit: 'MB',
    session_id: XSS_SESSION,
    user_id: `user ${XSS}`,
  }));
  return { spans, events, metrics: [...metrics, ...shadowedSession()] };
}

/**
 * MISMATCH_SESSION's 4 samples, then SHADOW_SAMPLES newer ones of a session whose id contains its id:
 * apm.search's 1,000 newest for `session_id=<MISMATCH_SESSION>` hold only some of its samples.
 */
function shadowedSession() {
  const sample = (session_id: string, at: number, value: number) => ({
    timestamp: iso(at),
    name: 'memory_mb',
    value,
    unit: 'MB',
    session_id,
  });
  const own = [0, 1, 2, 3].map((i) => sample(MISMATCH_SESSION, NOW - 7_200_000 + i * 60_000, 50 + 400 * i));
  const shadow = Array.from({ length: SHADOW_SAMPLES }, (_, i) =>
    sample(`${MISMATCH_SESSION}-shadow`, NOW - 3_600_000 - 1000 * i, 80),
  );
  return [...own, ...shadow];
}

async function ingestDemo(core: LoopbackCore): Promise<void> {
  let crash: Record<string, unknown> | undefined;
  for (const batch of iterateDemoBatches({ seed: 30, size: 0.1, now: NOW, days: 14 }, 8)) {
    const { logs: _logs, users: _users, ...records } = batch;
    crash ??= batch.crashes[0] as unknown as Record<string, unknown> | undefined;
    await core.ingest(records);
  }
  if (!crash) throw new Error('the demo project has no crash');
  // A demo crash again with a hostile type: a signature of its own, its type in the table.
  const { signature: _signature, ...unsigned } = crash;
  const hostileCrash = { ...unsigned, event_id: 'e'.repeat(32), error_type: XSS_CRASH, message: XSS };
  const { metrics, ...hostile } = hostileRecords();
  await core.ingest({ ...hostile, crashes: [hostileCrash] });
  for (let i = 0; i < metrics.length; i += 500) await core.ingest({ metrics: metrics.slice(i, i + 500) });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Mounted {
  frame: Frame;
  answer: Record<string, unknown>;
}

describeInBrowser('MCP Apps views in Chromium, fed real tool results', () => {
  let core: LoopbackCore;
  let browser: Browser;
  let page: Page;
  let host: string;
  const html = new Map(listViewResources().map((r) => [r.name, r.text]));
  const metas = toolViewMetas();
  const hostCalls: { name: string; arguments?: unknown }[] = [];

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    [core, browser, host] = await Promise.all([
      startLoopbackCore({
        name: 'mcp_views',
        key: KEY,
        internalSecret: 'views-internal-secret-0123456789',
        now: () => NOW,
      }),
      chromium.launch({ executablePath: executable!, headless: true }),
      viewHostBundle(),
    ]);
    await ingestDemo(core);
    page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    page.setDefaultTimeout(CONDITION_CEILING_MS);
    // The host forwards the view's tool calls to the real tool, as a host forwards them to its server.
    await page.exposeFunction('hostCallTool', async (params: { name: string; arguments?: unknown }) => {
      hostCalls.push(params);
      const answer = await core.tool<Record<string, unknown>>(params.name, params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
    });
  });

  afterAll(async () => {
    await browser?.close();
    await core?.close();
  });

  /** Calls `tool` on the core, mounts its view with the answer and waits for it to draw. */
  async function mount(
    tool: string,
    input: unknown,
    theme: 'light' | 'dark' = 'light',
    forwardsTools = true,
  ): Promise<Mounted> {
    const answer = await core.tool<Record<string, unknown>>(tool, input);
    const uri = metas[tool]!.ui.resourceUri;
    const view = listViewResources().find((r) => r.uri === uri)!;
    const result = {
      content: [{ type: 'text' as const, text: JSON.stringify(answer) }],
      structuredContent: answer,
    };
    const frame = await mountInHost(page, host, html.get(view.name)!, result, theme, forwardsTools);
    return { frame, answer };
  }

  const rectOf = (el: Element) => {
    const { x, y, width, height } = el.getBoundingClientRect();
    return { x, y, width, height };
  };

  /**
   * A screenshot of the whole view, or of `part` of it. The viewport grows to the frame's height
   * for it: Chromium leaves a frame's content below the viewport unpainted in page screenshots.
   */
  async function screenshot(file: string, part?: { frame: Frame; selector: string }): Promise<void> {
    const iframe = await page.locator('iframe').evaluate(rectOf);
    await page.setViewportSize({ width: 900, height: Math.max(700, Math.ceil(iframe.y + iframe.height)) });
    const inFrame = part && (await part.frame.locator(part.selector).evaluate(rectOf));
    await page.screenshot({
      path: `${OUTPUT_DIR}${file}`,
      ...(inFrame
        ? { clip: { ...inFrame, x: iframe.x + inFrame.x, y: iframe.y + inFrame.y } }
        : { fullPage: true }),
    });
    await page.setViewportSize({ width: 900, height: 700 });
  }

  async function check(frame: Frame, name: ViewName | string, theme = 'light'): Promise<void> {
    // Hostile text never became markup, and no script of it ran.
    expect(await frame.locator('img, #view script, iframe, object').count()).toBe(0);
    expect(await frame.evaluate(() => document.body.dataset.pwned)).toBeUndefined();
    // The host's theme reached the view (axe below checks the contrast in it).
    expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
    await frame.evaluate(axeSource);
    const violations = await frame.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: {
            run(ctx: Document): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
          };
        }
      ).axe;
      const results = await axe.run(document);
      return results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.nodes.length})`);
    });
    expect(violations).toEqual([]);
    await screenshot(`${name}-${theme}.png`);
  }

  const cellTexts = (frame: Frame, selector: string) => frame.locator(selector).allTextContents();

  it('trace.get: the waterfall of a demo trace, bars on one axis with the console rules', async () => {
    const found = await core.tool<{ items: { trace_id: string; span_count: number }[] }>('trace.search', {
      limit: 50,
    });
    const traceId = [...found.items].sort((a, b) => b.span_count - a.span_count)[0]!.trace_id;
    for (const theme of THEMES) {
      const { frame, answer } = await mount('trace.get', { trace_id: traceId }, theme);
      const spans = await expectWaterfall(frame, answer);
      // A span opens to its details, self time included.
      await frame
        .locator('summary')
        .first()
        .evaluate((el) => (el as HTMLElement).click());
      expect(await frame.locator('details[open] .details').textContent()).toContain(
        `${num(spans[0]!.self_ms)} ms`,
      );
      await check(frame, 'trace-waterfall', theme);
    }
  });

  it("draws only what its host frame sends: a sibling frame's forged result is ignored", async () => {
    const { frame } = await mount('analytics.funnel', { steps: [...FUNNEL_STEPS], days: 14 });
    // Every users value the view ever draws, whatever replaces it later.
    await frame.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        for (const tr of document.querySelectorAll('tr[data-users]'))
          seen.push(tr.getAttribute('data-users')!);
      }).observe(document.body, { subtree: true, childList: true });
    });
    const forged = (users: number) => ({
      jsonrpc: '2.0',
      method: 'ui/notifications/tool-result',
      params: {
        structuredContent: {
          window: { from: 'a', to: 'b' },
          window_hours: 1,
          steps: [
            { step: 1, event_name: 'forged', users, conversion_from_previous: 1, conversion_from_first: 1 },
          ],
          overall_conversion: null,
        },
      },
    });
    // A sibling frame posts first; then the host frame posts, and the view draws that one.
    await page.evaluate(async (message) => {
      const sent = new Promise<void>((resolve) =>
        window.addEventListener('message', (e) => e.data === 'forged-sent' && resolve()),
      );
      const sibling = document.createElement('iframe');
      sibling.setAttribute('sandbox', 'allow-scripts');
      sibling.title = 'another frame';
      sibling.srcdoc = `<script>parent.frames[0].postMessage(${JSON.stringify(message)}, '*'); parent.postMessage('forged-sent', '*');</script>`;
      document.body.appendChild(sibling);
      await sent;
    }, forged(999));
    await page.evaluate(
      (message) => document.querySelector('iframe')!.contentWindow!.postMessage(message, '*'),
      forged(555),
    );
    await frame.waitForSelector('tr[data-users="555"]');
    expect(await frame.evaluate(() => (window as unknown as { seen: string[] }).seen)).not.toContain('999');
  });

  it('trace.get: hostile span text renders as text', async () => {
    const { frame } = await mount('trace.get', { trace_id: XSS_TRACE });
    expect(await frame.locator('li[data-span-id]').count()).toBe(3);
    await frame
      .locator('summary')
      .nth(1)
      .evaluate((el) => (el as HTMLElement).click());
    const text = (await frame.locator('#view').textContent()) ?? '';
    expect(text).toContain(`op ${XSS}`);
    expect(text).toContain(`value ${XSS}`);
    await check(frame, 'trace-waterfall-hostile');
  });

  it.each(THEMES)('crash.stats: the daily bars and the signature distribution (%s theme)', async (theme) => {
    const { frame, answer } = await mount('crash.stats', { days: 14 }, theme);
    const stats = answer as {
      total: number;
      daily: { date: string; count: number }[];
      signatures: { count: number; share: number }[];
    };
    const bars = await frame
      .locator('rect.bar[data-label]')
      .evaluateAll((rects) =>
        rects.map((r) => [r.getAttribute('data-label'), Number(r.getAttribute('data-value'))]),
      );
    expect(bars).toEqual(stats.daily.map((d) => [d.date, d.count]));
    expect(await frame.locator('[data-field="total"]').textContent()).toBe(num(stats.total));
    expect(stats.signatures.length).toBeGreaterThan(0);
    const rows = await frame
      .locator('tr[data-count]')
      .evaluateAll((trs) =>
        trs.map((tr) => [Number(tr.getAttribute('data-count')), Number(tr.getAttribute('data-share'))]),
      );
    expect(rows).toEqual(stats.signatures.map((s) => [s.count, s.share]));
    expect(await frame.locator('tr[data-count] td:nth-child(2)').allTextContents()).toContain(XSS_CRASH);
    await check(frame, 'daily-trend-crashes', theme);
  });

  it.each(THEMES)(
    'track.stats: the daily bars and the event names, hostile ones as text (%s theme)',
    async (theme) => {
      const { frame, answer } = await mount('track.stats', { days: 14 }, theme);
      const stats = answer as {
        total: number;
        daily: { date: string; count: number }[];
        top_events: { event_name: string; count: number }[];
      };
      const bars = await frame
        .locator('rect.bar[data-label]')
        .evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('data-value'))));
      expect(bars).toEqual(stats.daily.map((d) => d.count));
      const names = await frame.locator('tr[data-count] td:first-child').allTextContents();
      expect(names).toEqual(stats.top_events.map((e) => e.event_name));
      expect(names).toContain(XSS_EVENT);
      await check(frame, 'daily-trend-events', theme);
    },
  );

  it.each(THEMES)(
    'trace.aggregate: per operation p50, p99 and error rate, sortable (%s theme)',
    async (theme) => {
      const { frame, answer } = await mount('trace.aggregate', { days: 14, limit: 20 }, theme);
      const ops = (
        answer as { operations: { operation: string; p50_ms: number; p99_ms: number; error_rate: number }[] }
      ).operations;
      const read = () =>
        frame
          .locator('tr[data-operation]')
          .evaluateAll((trs) =>
            trs.map((tr) => [
              tr.getAttribute('data-operation'),
              Number(tr.getAttribute('data-p50')),
              Number(tr.getAttribute('data-p99')),
              Number(tr.getAttribute('data-error-rate')),
            ]),
          );
      expect(await read()).toEqual(ops.map((o) => [o.operation, o.p50_ms, o.p99_ms, o.error_rate]));
      expect(await cellTexts(frame, 'tr[data-operation] td:nth-child(5)')).toEqual(
        ops.map((o) => pct(o.error_rate)),
      );
      await frame.locator('button[data-sort="p99_ms"]').evaluate((el) => (el as HTMLElement).click());
      const p99s = (await read()).map((r) => r[2] as number);
      expect(p99s).toEqual([...ops.map((o) => o.p99_ms)].sort((a, b) => b - a));
      expect(await frame.locator('th[aria-sort="descending"] button').getAttribute('data-sort')).toBe(
        'p99_ms',
      );
      await check(frame, 'operations', theme);
    },
  );

  it.each(THEMES)(
    'analytics.funnel: a bar per step on the scale of step 1, with the conversions (%s theme)',
    async (theme) => {
      const { frame, answer } = await mount(
        'analytics.funnel',
        { steps: [...FUNNEL_STEPS], days: 14 },
        theme,
      );
      const steps = (answer as { steps: { event_name: string; users: number }[] }).steps;
      expect(steps.map((s) => s.event_name)).toEqual(FUNNEL_STEPS);
      expect(steps[0]!.users).toBeGreaterThan(0);
      // Also: at the page's 900 px, no event name breaks inside a word.
      await expectFunnel(frame, answer);
      await check(frame, 'funnel', theme);
    },
  );

  it('analytics.funnel: a hostile event name is a step label as text', async () => {
    const { frame } = await mount('analytics.funnel', { steps: [XSS_EVENT, XSS_EVENT], days: 14 });
    expect(await eventNameCells(frame)).toEqual(
      [XSS_EVENT, XSS_EVENT].map((name) => ({ text: name, title: name, split: [] })),
    );
    await check(frame, 'funnel-hostile');
  });

  it.each(THEMES)('analytics.retention: the curve and the table per day offset (%s theme)', async (theme) => {
    const { frame, answer } = await mount('analytics.retention', { days: 14, max_day: 7 }, theme);
    const days = (answer as { days: { day: number; rate: number | null }[] }).days;
    const rows = await frame
      .locator('tr[data-day]')
      .evaluateAll((trs) =>
        trs.map((tr) => [Number(tr.getAttribute('data-day')), tr.getAttribute('data-rate')]),
      );
    expect(rows).toEqual(days.map((d) => [d.day, d.rate === null ? '' : String(d.rate)]));
    const points = await frame
      .locator('circle[data-day]')
      .evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('data-value'))));
    expect(points).toEqual(days.filter((d) => d.rate !== null).map((d) => d.rate));
    await check(frame, 'retention', theme);
  });

  it('analytics.cohorts: a heatmap cell per cohort and day offset, in both themes', async () => {
    for (const theme of THEMES) {
      const { frame, answer } = await mount(
        'analytics.cohorts',
        { days: 14, max_day: 7, granularity: 'day' },
        theme,
      );
      const cohorts = (
        answer as { cohorts: { cohort: string; days: { day: number; rate: number | null }[] }[] }
      ).cohorts;
      const cells = await frame
        .locator('tr[data-cohort]')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute('data-cohort'),
            [...tr.querySelectorAll('td.cell')].map((td) => [
              Number(td.getAttribute('data-day')),
              td.getAttribute('data-rate'),
              td.textContent,
            ]),
          ]),
        );
      expect(cells).toEqual(
        cohorts.map((c) => [
          c.cohort,
          c.days.map((d) => [d.day, d.rate === null ? '' : String(d.rate), pct(d.rate)]),
        ]),
      );
      await check(frame, 'retention-cohorts', theme);
    }
  });

  it.each(THEMES)(
    'release.health: the versions side by side with score, grade and components (%s theme)',
    async (theme) => {
      const versions = `${LEAKY_RELEASE},2.3.0,${'9.9.9'}`;
      const { frame, answer } = await mount('release.health', { versions }, theme);
      const releases = (
        answer as { releases: { version: string; score: number | null; grade: string | null }[] }
      ).releases;
      expect(await cellTexts(frame, 'thead th[scope="col"]:not(:first-child)')).toEqual(
        releases.map((r) => r.version),
      );
      const scores = await frame
        .locator('tr[data-row="score"] [data-value]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
      expect(scores).toEqual(releases.map((r) => (r.score === null ? '' : String(r.score))));
      expect(releases.some((r) => r.score !== null)).toBe(true);
      const grades = await cellTexts(frame, 'tr[data-row="grade"] td');
      releases.forEach((r, i) => {
        if (r.grade !== null) expect(grades[i]).toBe(r.grade);
      });
      await check(frame, 'release-health', theme);
    },
  );

  it('release.health: a hostile version name is a column heading as text', async () => {
    const { frame } = await mount('release.health', { version: `v${XSS}` });
    expect(await cellTexts(frame, 'thead th[scope="col"]:not(:first-child)')).toEqual([`v${XSS}`]);
    await check(frame, 'release-health-hostile');
  });

  type Growth = {
    window: { from: string; to: string };
    items: { session_id: string; samples: number; slope_mb_per_min: number }[];
  };
  type Drawn = { ms: number; mb: number; cx: number; cy: number };

  /** The session's memory samples from apm.search: that session exactly, in the window, oldest first. */
  async function sessionSamples(session: string, window: Growth['window']) {
    const found = await core.tool<{
      items: { timestamp: string; value: number; session_id: string | null }[];
    }>('apm.search', { name: 'memory_mb', search: `session_id=${session}`, limit: 1000 });
    return found.items
      .filter((s) => s.session_id === session)
      .map((s) => ({ ms: Date.parse(s.timestamp), mb: s.value }))
      .filter((s) => s.ms >= Date.parse(window.from) && s.ms <= Date.parse(window.to))
      .sort((a, b) => a.ms - b.ms || a.mb - b.mb);
  }

  /** Waits for the session's samples to be drawn, then reads the points and the line. */
  async function drawnSession(frame: Frame, session: string) {
    await frame.waitForFunction(
      (id) => (document.querySelector('section[data-samples]') as HTMLElement | null)?.dataset.session === id,
      session,
    );
    return frame.locator('section[data-samples]').evaluate((section) => {
      const n = (el: Element, name: string) => Number(el.getAttribute(name));
      const points = [...section.querySelectorAll('circle')].map((c) => ({
        ms: n(c, 'data-ms'),
        mb: n(c, 'data-value'),
        cx: n(c, 'cx'),
        cy: n(c, 'cy'),
      }));
      const line = section.querySelector('line[data-slope]');
      return {
        points,
        line: line && { x1: n(line, 'x1'), y1: n(line, 'y1'), x2: n(line, 'x2'), y2: n(line, 'y2') },
        status: section.querySelector('[role="status"]')?.textContent ?? '',
      };
    });
  }

  /** The points are the samples, placed monotonically in time and in MB. */
  function expectPointsAreSamples(points: Drawn[], samples: { ms: number; mb: number }[]): void {
    const byTime = [...points].sort((a, b) => a.ms - b.ms || a.mb - b.mb);
    expect(byTime.map((p) => [p.ms, p.mb])).toEqual(samples.map((s) => [s.ms, s.mb]));
    for (let i = 1; i < byTime.length; i++) {
      const [a, b] = [byTime[i - 1]!, byTime[i]!];
      if (b.ms > a.ms) expect(b.cx).toBeGreaterThan(a.cx);
      else expect(b.cx).toBe(a.cx);
    }
    const byValue = [...points].sort((a, b) => a.mb - b.mb);
    for (let i = 1; i < byValue.length; i++) {
      const [a, b] = [byValue[i - 1]!, byValue[i]!];
      // SVG's y grows downwards: more MB is higher up.
      if (b.mb > a.mb) expect(b.cy).toBeLessThan(a.cy);
      else expect(b.cy).toBe(a.cy);
    }
  }

  /** The line's slope in SVG units, turned back into MB per minute with the points' own scales. */
  function slopeOfLine(points: Drawn[], line: { x1: number; y1: number; x2: number; y2: number }): number {
    const [early, late] = [
      points.reduce((a, b) => (b.ms < a.ms ? b : a)),
      points.reduce((a, b) => (b.ms > a.ms ? b : a)),
    ];
    const [low, high] = [
      points.reduce((a, b) => (b.mb < a.mb ? b : a)),
      points.reduce((a, b) => (b.mb > a.mb ? b : a)),
    ];
    const pxPerMinute = ((late.cx - early.cx) / (late.ms - early.ms)) * 60_000;
    const pxPerMb = (low.cy - high.cy) / (high.mb - low.mb);
    return (-(line.y2 - line.y1) / (line.x2 - line.x1)) * (pxPerMinute / pxPerMb);
  }

  it.each(THEMES)(
    'apm.memory_growth: the sessions steepest first with the tool slopes, hostile ids as text (%s theme)',
    async (theme) => {
      const { frame, answer } = await mount('apm.memory_growth', { days: 14, limit: 20 }, theme);
      const items = (answer as Growth).items;
      expect(items.map((i) => i.session_id)).toContain(XSS_SESSION);
      const rows = await frame
        .locator('tr[data-session]')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute('data-session'),
            Number(tr.getAttribute('data-slope')),
            tr.querySelector('td')!.textContent,
          ]),
        );
      expect(rows).toEqual(items.map((i) => [i.session_id, i.slope_mb_per_min, i.session_id]));
      await drawnSession(frame, items[0]!.session_id);
      await check(frame, 'memory-growth', theme);
    },
  );

  it("apm.memory_growth: a session's samples from apm.search with the tool's line; another row redraws", async () => {
    const { frame, answer } = await mount('apm.memory_growth', { days: 14, limit: 20 });
    const growth = answer as Growth;
    const demo = growth.items.find((i) => i.session_id !== XSS_SESSION && i.session_id !== MISMATCH_SESSION);
    if (!demo) throw new Error('no demo session grows');
    // The first session is drawn without a click; then a demo session's row.
    for (const [session, select] of [
      [growth.items[0]!, false],
      [demo, true],
    ] as const) {
      if (select)
        await frame
          .locator('tr[data-session] button')
          .nth(growth.items.indexOf(session))
          .evaluate((el) => (el as HTMLElement).click());
      const samples = await sessionSamples(session.session_id, growth.window);
      expect(samples.length).toBe(session.samples);
      expect(samples.length).toBeGreaterThanOrEqual(3);
      const drawn = await drawnSession(frame, session.session_id);
      expect(drawn.points).toHaveLength(session.samples);
      expectPointsAreSamples(drawn.points, samples);
      expect(drawn.line).not.toBeNull();
      const slope = slopeOfLine(drawn.points, drawn.line!);
      expect(Math.abs(slope - session.slope_mb_per_min)).toBeLessThanOrEqual(
        1e-6 * Math.max(1, Math.abs(session.slope_mb_per_min)),
      );
      expect(drawn.status).toContain(`${num(session.slope_mb_per_min)} MB/min`);
      expect(hostCalls.at(-1)).toEqual({
        name: 'apm.search',
        arguments: { name: 'memory_mb', search: `session_id=${session.session_id}`, limit: 1000 },
      });
    }
    await screenshot('memory-growth-samples.png', { frame, selector: 'section[data-samples]' });
    await check(frame, 'memory-growth-selected');
  });

  it('apm.memory_growth: when apm.search finds another count than the tool fitted, points and no line', async () => {
    const { frame, answer } = await mount('apm.memory_growth', { days: 14, limit: 20 });
    const growth = answer as Growth;
    const index = growth.items.findIndex((i) => i.session_id === MISMATCH_SESSION);
    const session = growth.items[index]!;
    await frame
      .locator('tr[data-session] button')
      .nth(index)
      .evaluate((el) => (el as HTMLElement).click());
    const samples = await sessionSamples(MISMATCH_SESSION, growth.window);
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.length).toBeLessThan(session.samples);
    const drawn = await drawnSession(frame, MISMATCH_SESSION);
    expectPointsAreSamples(drawn.points, samples);
    expect(drawn.line).toBeNull();
    expect(drawn.status).toContain(`found ${num(samples.length)} samples`);
    expect(drawn.status).toContain(`fitted ${num(session.samples)}`);
  });

  it('apm.memory_growth: a host that forwards no tool calls gets the sessions and a note, no call', async () => {
    const calls = hostCalls.length;
    const { frame, answer } = await mount('apm.memory_growth', { days: 14, limit: 20 }, 'light', false);
    const first = (answer as Growth).items[0]!;
    await frame.waitForFunction(
      (id) => (document.querySelector('section[data-samples]') as HTMLElement | null)?.dataset.session === id,
      first.session_id,
    );
    expect(await frame.locator('section[data-samples] [role="status"]').textContent()).toContain(
      'did not return the samples',
    );
    expect(await frame.locator('section[data-samples] circle').count()).toBe(0);
    expect(await frame.locator('tr[data-session]').count()).toBe((answer as Growth).items.length);
    expect(hostCalls.length).toBe(calls);
    await check(frame, 'memory-growth-no-bridge');
  });
});
