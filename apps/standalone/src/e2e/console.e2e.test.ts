import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '@svc/browser-testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { adminCall, adminOf, bearer, callRest, connectMcp } from './support';

// The web console in the system's Chromium against the whole stack (`pnpm start` as a process):
// sign in, step up, create an MCP token and use it from the MCP SDK client, revoke it and see that
// client refused, and the other pages, at a desktop width (1280 px) and a phone's (390 px). Every
// page is photographed for review under apps/standalone/test-output/console/ (not committed).

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'console');
const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('console browser tests skipped: no Chromium (set CHROMIUM_PATH)');

let stack: SpawnedStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let consoleUrl: string;

beforeAll(async () => {
  if (!executablePath) return;
  mkdirSync(SHOTS, { recursive: true });
  stack = await spawnStack();
  consoleUrl = stack.ready.urls.console;
  // Playwright waits on conditions (a page loaded, an element there) up to 30 s by default; a
  // loaded machine can take longer for either, so its ceiling is the shared one of conditions.
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
  context = await newContext({ viewport: DESKTOP });
  page = await context.newPage();
}, STACK_SETUP_TIMEOUT_MS);

/** A browser context whose waits (navigation, actions, waitForURL) have the conditions' ceiling. */
async function newContext(options: Parameters<Browser['newContext']>[0]): Promise<BrowserContext> {
  const created = await browser.newContext(options);
  created.setDefaultTimeout(CONDITION_CEILING_MS);
  created.setDefaultNavigationTimeout(CONDITION_CEILING_MS);
  return created;
}

afterAll(async () => {
  await browser?.close();
  await stack?.dispose();
});

/** A full-page screenshot; `secret` parts (a token) are masked so the files can be shared. */
async function shot(name: string, secret: string[] = []) {
  await page.screenshot({
    path: join(SHOTS, `${name}.png`),
    fullPage: true,
    mask: secret.map((selector) => page.locator(selector)),
  });
}

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** An element the page must show: every match of `selector` (whose text is `text`, when given). */
type Shown = [selector: string, text?: string];

/**
 * What keeps the open page from reading well at its width: the document wider than the window, a
 * table wider than its box (columns hidden behind a scroll), or an element of `shown` missing or
 * not on screen (outside the window, or cut off by a scrolling or clipping box around it).
 */
async function layoutProblems(shown: Shown[] = []): Promise<string[]> {
  return page.evaluate((expected) => {
    const problems: string[] = [];
    const root = document.documentElement;
    const width = root.clientWidth;
    if (root.scrollWidth > width) problems.push(`the page is ${root.scrollWidth} px wide in ${width}`);
    for (const table of document.querySelectorAll('main table')) {
      const own = table.getBoundingClientRect().width;
      const box = table.parentElement!.getBoundingClientRect().width;
      if (own > box + 0.5)
        problems.push(`table ${table.id || table.className}: ${Math.round(own)} px in ${box}`);
    }
    const onScreen = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0 && r.left >= -0.5 && r.right <= width + 0.5)) return false;
      for (let box = el.parentElement; box; box = box.parentElement) {
        if (getComputedStyle(box).overflowX === 'visible') continue;
        const b = box.getBoundingClientRect();
        if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return false;
      }
      return true;
    };
    for (const [selector, text] of expected) {
      const all = [...document.querySelectorAll(selector)].filter(
        (el) => text === undefined || el.textContent?.trim() === text,
      );
      const what = text === undefined ? selector : `${selector} "${text}"`;
      if (all.length === 0) problems.push(`${what}: not in the page`);
      const hidden = all.filter((el) => !onScreen(el)).length;
      if (hidden > 0) problems.push(`${what}: ${hidden} of ${all.length} not on screen`);
    }
    return problems;
  }, shown);
}

async function signIn() {
  const login = stack.ready.console_login!;
  await page.goto(`${consoleUrl}/mcp`);
  expect(new URL(page.url()).pathname).toBe('/login');
  await shot('01-login');
  await page.getByLabel('Email').fill(login.email);
  await page.getByLabel('Password').fill(login.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/mcp$/);
}

describeInBrowser('web console in Chromium', () => {
  let token = '';
  /** The error trace the waterfall test opened, for the phone's view of it. */
  let traceId = '';

  it('signs in with the demo login the stack printed', async () => {
    expect(stack.ready.console_login).toEqual({ email: expect.any(String), password: expect.any(String) });
    expect(stack.output()).toContain(`Web console     ${consoleUrl}`);
    await signIn();
    await expect(page.getByRole('heading', { level: 1 })).toBeTruthy();
    expect(await page.locator('h1').textContent()).toContain('MCP tokens');
    await shot('02-mcp-before-step-up');
  });

  it('creates an MCP token behind a step-up, shown once with client configs', async () => {
    await page.getByLabel('Password').fill(stack.ready.console_login!.password);
    await page.getByRole('button', { name: 'Confirm password' }).click();
    await page.getByLabel('Name').fill('browser test');
    await page.getByLabel('Valid for (days)').fill('30');
    await page.getByRole('button', { name: 'Create MCP token' }).click();
    token = await page.locator('#new-token').inputValue();
    expect(token).toMatch(/^svc_pat_[0-9A-Za-z]{36}$/);
    for (const id of [
      '#config-claude-code',
      '#config-claude-desktop',
      '#config-cursor',
      '#config-inspector',
      '#config-mcp-curl',
    ]) {
      expect(await page.locator(id).textContent()).toContain(stack.ready.urls.mcp);
    }
    await shot('03-token-created', ['#new-token', 'pre code']);
  });

  it('the new token works from the MCP SDK client', async () => {
    const client = await connectMcp(stack.ready.urls.mcp, bearer(token), 'console-token');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('trace.get');
    const answer = await client.callTool({ name: 'log.aggregate', arguments: { group_by: 'level' } });
    expect(answer.isError).toBeFalsy();

    // Revoked on the page: the same client's next request is refused.
    await page.goto(`${consoleUrl}/mcp?project=${stack.ready.project_id}`);
    const row = page.locator('#mcp-tokens tr', { hasText: 'browser test' });
    expect(await row.locator('td').nth(4).textContent()).not.toBe('never');
    await shot('04-mcp-token-list');
    await row.getByRole('link', { name: /Revoke/ }).click();
    await shot('05-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke token' }).click();
    expect(await page.getByRole('status').textContent()).toContain('revoked');
    await expect(client.listTools()).rejects.toThrow(/401|nauthorized/);
    await client.close().catch(() => undefined);
    expect((await callRest(stack.ready.urls.gateway, 'log.recent', { limit: 1 }, bearer(token))).status).toBe(
      401,
    );
  });

  it('never shows the token again: not in pages, logs or audit records', async () => {
    for (const path of ['/mcp', '/mcp?tab=api']) {
      await page.goto(`${consoleUrl}${path}`);
      expect(await page.content()).not.toContain(token);
    }
    expect(stack.output()).not.toContain(token);
    const audit = await adminCall(
      adminOf(stack),
      'GET',
      `/internal/v1/audit?project_id=${stack.ready.project_id}&limit=1000`,
    );
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('opens a demo trace as a waterfall: tree order, shared time axis, colors by kind and error', async () => {
    await page.goto(`${consoleUrl}/traces?project=${stack.ready.project_id}&status=error`);
    await shot('06-traces-list');
    const first = page.locator('#traces tbody tr').first();
    expect(await first.getAttribute('data-error')).toBe('true');
    await first.locator('a.trace-link').click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}/);
    traceId = new URL(page.url()).pathname.split('/').pop()!;

    // The DOM against trace.get over REST, read independently with the demo token.
    interface SpanNode {
      span_id: string;
      kind: string;
      status: string;
      duration_ms: number;
      children: SpanNode[];
    }
    const answer = await callRest(
      stack.ready.urls.gateway,
      'trace.get',
      { trace_id: traceId },
      bearer(stack.ready.token!),
    );
    const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);
    const trace = { spans: flatten((answer.body as { spans: SpanNode[] }).spans) };
    const rows = await page.locator('#waterfall li.waterfall-row').evaluateAll((lis) =>
      lis.map((li) => {
        const rect = li.querySelector('rect')!;
        return {
          id: li.getAttribute('data-span-id')!,
          parent: li.getAttribute('data-parent-span-id'),
          depth: Number(li.getAttribute('data-depth')),
          kind: li.getAttribute('data-kind'),
          status: li.getAttribute('data-status'),
          x: Number(rect.getAttribute('x')),
          width: Number(rect.getAttribute('width')),
          fill: getComputedStyle(rect).fill,
        };
      }),
    );
    expect(rows.map((r) => r.id).sort()).toEqual(trace.spans.map((sp) => sp.span_id).sort());
    // Depth-first: every child comes after its parent, one level deeper.
    rows.forEach((row, i) => {
      const parentIndex = rows.findIndex((r) => r.id === row.parent);
      if (parentIndex === -1) expect(row.depth).toBe(0);
      else {
        expect(parentIndex).toBeLessThan(i);
        expect(row.depth).toBe(rows[parentIndex]!.depth + 1);
      }
    });
    // Bars: on one axis, length proportional to duration (the longest span is the widest bar).
    const longest = [...trace.spans].sort((a, b) => b.duration_ms - a.duration_ms)[0]!;
    const widest = [...rows].sort((a, b) => b.width - a.width)[0]!;
    expect(
      widest.id === longest.span_id || widest.width === rows.find((r) => r.id === longest.span_id)!.width,
    ).toBe(true);
    for (const row of rows) {
      const span = trace.spans.find((sp) => sp.span_id === row.id)!;
      expect(row.x + row.width).toBeLessThanOrEqual(1000.5);
      if (span.duration_ms > longest.duration_ms / 50)
        expect(row.width / widest.width).toBeCloseTo(span.duration_ms / longest.duration_ms, 1);
    }
    // The waterfall's colors: red for error, else blue client, green server, gray other.
    const colors = {
      error: 'rgb(198, 40, 40)',
      client: 'rgb(21, 101, 192)',
      server: 'rgb(46, 125, 50)',
      other: 'rgb(117, 117, 117)',
    };
    expect(rows.some((r) => r.status === 'error')).toBe(true);
    for (const row of rows) {
      const expected =
        row.status === 'error'
          ? colors.error
          : row.kind === 'client'
            ? colors.client
            : row.kind === 'server'
              ? colors.server
              : colors.other;
      expect(row.fill).toBe(expected);
    }
    // A span's attributes on click.
    const firstRow = page.locator('#waterfall li.waterfall-row').first();
    await firstRow.locator('summary').click();
    expect(await firstRow.locator('details').getAttribute('open')).not.toBeNull();
    expect(await firstRow.locator('.span-details').textContent()).toContain(rows[0]!.id);
    await shot('07-trace-waterfall');
  });

  it('shows recalled files and their entries, triggers a recall, and both land in the recall audit trail', async () => {
    await page.goto(`${consoleUrl}/recall?project=${stack.ready.project_id}`);
    const files = page.locator('#recall-files tbody tr');
    expect(await files.count()).toBeGreaterThan(0);
    await shot('08-recall-files');
    const fileId = (await files.first().getAttribute('data-file-id'))!;
    await files
      .first()
      .getByRole('link', { name: /View entries/ })
      .click();
    await page.waitForURL(new RegExp(`/recall/files/${fileId}`));
    await shot('09-recall-entries');

    await page.goto(`${consoleUrl}/recall?project=${stack.ready.project_id}`);
    await page.locator('#trigger-recall').getByLabel('Device id').fill('device-from-the-browser');
    await page.getByRole('button', { name: 'Trigger recall' }).click();
    const notice = await page.locator('#recall-notice').textContent();
    expect(notice).toMatch(/rr_[0-9a-f]+/);
    await shot('10-recall-triggered');

    const trail = (await callRest(stack.ready.urls.gateway, 'log.audit', {}, bearer(stack.ready.token!)))
      .body as {
      items?: { action: string; device_id?: string | null; file_id?: string | null; via?: string }[];
    };
    const items = trail.items ?? [];
    expect(items.some((e) => e.action === 'trigger' && e.device_id === 'device-from-the-browser')).toBe(true);
    // The view was made by the console's own tool call: recorded as the console's, not as REST.
    expect(items.some((e) => e.action === 'view' && e.file_id === fileId && e.via === 'console')).toBe(true);
    await page.goto(`${consoleUrl}/recall/audit?project=${stack.ready.project_id}`);
    const viewed = page.locator('#recall-audit tbody tr', { hasText: fileId }).first();
    expect(await viewed.locator('td[data-label="Action"]').textContent()).toContain('via console');
    expect(await viewed.locator('td[data-label="Who"]').textContent()).toContain(
      stack.ready.console_login!.email,
    );
  });

  it("shows the project's audit trail, verified, with the console's own tool calls in it, as the console's", async () => {
    await page.goto(`${consoleUrl}/audit?project=${stack.ready.project_id}`);
    expect(await page.locator('#audit-verification').getAttribute('data-verified')).toBe('ok');
    const text = (await page.locator('#audit-records').textContent()) ?? '';
    expect(text).toContain('trace.get');
    expect(text).toContain('log.file_entries');
    // The console's calls, read independently from identity: transport console, by the signed-in
    // person with the console's own token; the page names them (email, token name), ids on demand.
    const { items } = await adminCall<{
      items: { tool: string; transport: string; user_id: string | null; token_id: string | null }[];
    }>(adminOf(stack), 'GET', `/internal/v1/audit?project_id=${stack.ready.project_id}&limit=1000`);
    const traceGets = items.filter((r) => r.tool === 'trace.get' && r.transport === 'console');
    expect(traceGets.length).toBeGreaterThan(0);
    expect(new Set(traceGets.map((r) => r.user_id))).toEqual(new Set([stack.ready.user_id]));
    // The test's own trace.get with the demo token is REST; the console's is the console's.
    const rows = page.locator('#audit-records tbody tr', { hasText: 'trace.get' });
    const via = (transport: string) =>
      rows.filter({ has: page.locator('td[data-label="Via"]', { hasText: new RegExp(`^${transport}$`) }) });
    expect(await via('rest').count()).toBeGreaterThan(0);
    const row = via('console').first();
    const who = row.locator('td[data-label="Who"]');
    expect(await who.textContent()).toContain(stack.ready.console_login!.email);
    expect(await who.textContent()).toContain('token “web console”');
    expect(await who.textContent()).not.toMatch(/usr_|tok_/);
    expect(await who.locator('.who-user').getAttribute('title')).toBe(stack.ready.user_id);
    await row.locator('td[data-label="Details"] summary').click();
    expect(await row.locator('td[data-label="Details"]').textContent()).toContain(stack.ready.user_id!);
    expect(await row.locator('td[data-label="Details"] pre').textContent()).toContain('"trace_id"');
    await shot('11-audit');
  });

  it('runs a tool from a form generated from its schema, with the curl and MCP equivalents', async () => {
    await page.goto(`${consoleUrl}/tools?project=${stack.ready.project_id}`);
    await shot('12-tools');
    await page.goto(`${consoleUrl}/tools/log.aggregate?project=${stack.ready.project_id}`);
    await page
      .locator('#tool-form')
      .getByLabel(/group_by/)
      .selectOption('level');
    // The window ends now: a bucket boundary may pass between two calls, so the console's answer
    // must equal a direct call's made just before or just after it.
    const direct = async () =>
      (
        await callRest(
          stack.ready.urls.gateway,
          'log.aggregate',
          { group_by: 'level' },
          bearer(stack.ready.token!),
        )
      ).body.groups;
    const before = await direct();
    await page.getByRole('button', { name: 'Run log.aggregate' }).click();
    const result = JSON.parse((await page.locator('#tool-result').textContent()) ?? '{}');
    const after = await direct();
    expect([before, after]).toContainEqual(result.groups);
    expect(await page.locator('#call-curl').textContent()).toContain('/v1/tools/log.aggregate');
    expect(await page.locator('#call-mcp').textContent()).toContain('"tools/call"');
    await shot('13-tool-result');
  });

  it('keeps the waterfall readable on a phone (390 px): every bar shown, its width proportional to its span', async () => {
    await page.setViewportSize(PHONE);
    try {
      await page.goto(`${consoleUrl}/traces/${traceId}?project=${stack.ready.project_id}`);
      expect(await layoutProblems([['#waterfall rect'], ['#waterfall .span-duration']])).toEqual([]);
      interface SpanNode {
        span_id: string;
        duration_ms: number;
        children: SpanNode[];
      }
      const answer = await callRest(
        stack.ready.urls.gateway,
        'trace.get',
        { trace_id: traceId },
        bearer(stack.ready.token!),
      );
      const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);
      const spans = flatten((answer.body as { spans: SpanNode[] }).spans);
      const bars = await page.locator('#waterfall li.waterfall-row').evaluateAll((lis) =>
        lis.map((li) => {
          const bar = li.querySelector('rect')!.getBoundingClientRect();
          const axis = li.querySelector('.span-timeline')!.getBoundingClientRect();
          return {
            id: li.getAttribute('data-span-id')!,
            left: bar.left,
            right: bar.right,
            width: bar.width,
            height: bar.height,
            axisLeft: axis.left,
            axisRight: axis.right,
          };
        }),
      );
      expect(bars.map((b) => b.id).sort()).toEqual(spans.map((sp) => sp.span_id).sort());
      const longest = Math.max(...spans.map((sp) => sp.duration_ms));
      const widest = Math.max(...bars.map((b) => b.width));
      for (const bar of bars) {
        const span = spans.find((sp) => sp.span_id === bar.id)!;
        // On the shared axis, which takes most of the phone's width, and on screen.
        expect(bar.axisRight - bar.axisLeft).toBeGreaterThan(PHONE.width * 0.75);
        expect(bar.width).toBeGreaterThanOrEqual(0.9);
        expect(bar.height).toBeGreaterThan(0);
        expect(bar.left).toBeGreaterThanOrEqual(bar.axisLeft - 0.5);
        expect(bar.right).toBeLessThanOrEqual(Math.min(bar.axisRight, PHONE.width) + 0.5);
        if (span.duration_ms > longest / 50)
          expect(bar.width / widest).toBeCloseTo(span.duration_ms / longest, 1);
      }
      await shot('390-07-trace-waterfall');
      // Every span opened: its facts and attributes fit the phone too.
      for (const summary of await page.locator('#waterfall summary').all()) await summary.click();
      expect(
        await layoutProblems([['#waterfall .span-details dl'], ['#waterfall .span-attributes']]),
      ).toEqual([]);
      await shot('390-07-trace-spans-open');
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });

  it('fits every page at 1280 and 390 px: no page wider than the window, every table column on screen', async () => {
    const project = stack.ready.project_id;
    await page.goto(`${consoleUrl}/recall?project=${project}`);
    const fileHref = await page
      .locator('#recall-files a', { hasText: 'View entries' })
      .first()
      .getAttribute('href');
    const desktopOnly = (shown: Shown[]) => (page.viewportSize()!.width === DESKTOP.width ? shown : []);
    const pages: [name: string, path: string, shown: () => Shown[]][] = [
      [
        'mcp',
        '/mcp',
        () => [['#mcp-tokens td[data-label="Last used"]'], ['#mcp-tokens td[data-label="Status"]']],
      ],
      [
        'traces',
        '/traces',
        () => [
          ['#traces a.trace-link'],
          ['#traces td[data-label="Status"]'],
          ['#traces td[data-label="Services"]'],
        ],
      ],
      ['trace', `/traces/${traceId}`, () => [['#waterfall rect']]],
      [
        'recall',
        '/recall',
        () => [
          ['#recall-files td[data-label="Size"]'],
          ['#recall-files td[data-label="Uploaded"]'],
          ['#recall-files td.actions a'],
          ['#recall-files td.actions button'],
          ['#recall-devices td.actions button'],
          ...desktopOnly([
            ['#recall-files th', 'Size'],
            ['#recall-files th', 'Uploaded'],
            ['#recall-files th', 'Actions'],
          ]),
        ],
      ],
      [
        'recall-file',
        fileHref!.split('?')[0]!,
        () => [['#file-entries td[data-label="Message"]'], ['#file-entries td[data-label="Other fields"]']],
      ],
      [
        'recall-audit',
        '/recall/audit',
        () => [['#recall-audit td[data-label="Who"]'], ['#recall-audit td[data-label="Device / end user"]']],
      ],
      [
        'audit',
        '/audit',
        () => [
          ['#audit-records td[data-label="Who"]'],
          ['#audit-records td[data-label="Via"]'],
          ['#audit-records td[data-label="Details"] summary'],
          ...desktopOnly([['#audit-records th', 'Details']]),
        ],
      ],
      ['tools', '/tools', () => [['table.tool-list td code']]],
    ];
    const notFound: string[] = [];
    const on404 = (res: { status(): number; url(): string }) => {
      if (res.status() === 404) notFound.push(res.url());
    };
    page.on('response', on404);
    const found: Record<string, string[]> = {};
    try {
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        for (const [name, path, shown] of pages) {
          await page.goto(`${consoleUrl}${path}?project=${project}`);
          const problems = await layoutProblems(shown());
          if (problems.length > 0) found[`${size.width} ${path}`] = problems;
          await shot(`${size.width}-${name}`);
        }
        // An audit record's params and ids, opened.
        await page.goto(`${consoleUrl}/audit?project=${project}`);
        await page.locator('#audit-records td[data-label="Details"] summary').first().click();
        const opened = await layoutProblems([
          ['#audit-records details[open] pre'],
          ['#audit-records details[open] dl'],
        ]);
        if (opened.length > 0) found[`${size.width} /audit, a record's details`] = opened;
        // The tool runner's answer.
        await page.goto(`${consoleUrl}/tools/log.aggregate?project=${project}`);
        await page
          .locator('#tool-form')
          .getByLabel(/group_by/)
          .selectOption('level');
        await page.getByRole('button', { name: 'Run log.aggregate' }).click();
        const answer = await layoutProblems([['pre.tool-result'], ['.copyable pre']]);
        if (answer.length > 0) found[`${size.width} /tools/log.aggregate, an answer`] = answer;
        await shot(`${size.width}-tool-result`);
      }
    } finally {
      page.off('response', on404);
      await page.setViewportSize(DESKTOP);
    }
    expect(found).toEqual({});
    // Every load named its icon, and nothing a page asked for was missing (the favicon was).
    expect(notFound).toEqual([]);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const served = await page.request.get(`${consoleUrl}${icon}`);
    expect(served.status()).toBe(200);
    expect(served.headers()['content-type']).toMatch(/^image\/svg\+xml/);
  });

  it("shows tool descriptions' code spans as code, never as backticks", async () => {
    // A tool whose published description has code spans, and what they are, from the gateway.
    const openapi = (await (await fetch(`${stack.ready.urls.gateway}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { description?: string } }>;
    };
    const [path, item] = Object.entries(openapi.paths).find(([, v]) =>
      /`[^`]+`/.test(v.post?.description ?? ''),
    )!;
    const description = item.post!.description!;
    const spans = [...description.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    await page.goto(
      `${consoleUrl}${path.replace('/v1/tools/', '/tools/')}?project=${stack.ready.project_id}`,
    );
    const shown = page.locator('#tool-description');
    expect(await shown.locator('code').allTextContents()).toEqual(spans);
    expect(await shown.textContent()).toBe(description.replaceAll('`', ''));
  });

  it('passes axe-core on every page at 1280 and 390 px: no serious or critical WCAG 2 A/AA violation', async () => {
    // A context of its own with the same cookies: axe is injected as a script, which the console's
    // CSP (rightly) refuses in the context the other tests use.
    const audit = await newContext({ bypassCSP: true, storageState: await context.storageState() });
    const checker = await audit.newPage();
    const traceHref = await (async () => {
      await checker.goto(`${consoleUrl}/traces?project=${stack.ready.project_id}`);
      return checker.locator('a.trace-link').first().getAttribute('href');
    })();
    const fileHref = await (async () => {
      await checker.goto(`${consoleUrl}/recall?project=${stack.ready.project_id}`);
      return checker.locator('#recall-files a', { hasText: 'View entries' }).first().getAttribute('href');
    })();
    const pages = [
      '/mcp',
      '/mcp?tab=api',
      '/traces',
      traceHref!,
      '/recall',
      fileHref!,
      '/recall/audit',
      '/audit',
      '/tools',
      '/tools/log.aggregate',
    ];
    const found: Record<string, string[]> = {};
    for (const size of [DESKTOP, PHONE]) {
      await checker.setViewportSize(size);
      for (const path of pages) {
        const url = `${consoleUrl}${path}${path.includes('?') ? '&' : '?'}project=${stack.ready.project_id}`;
        await checker.goto(url);
        await checker.addScriptTag({ path: AXE });
        const violations = await checker.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: {
                run(o: unknown): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
              };
            }
          ).axe;
          const result = await axe.run({
            runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
          });
          return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
        });
        const serious = violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}, ${v.nodes})`);
        // The page itself never scrolls sideways, on a desktop or a phone.
        const sideways = await checker.evaluate(
          () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
        );
        if (sideways) serious.push('page wider than the window');
        if (serious.length > 0) found[`${size.width} ${path}`] = serious;
      }
    }
    // The checker itself: an unlabelled input added to the last page is found.
    const planted = await checker.evaluate(async () => {
      document
        .querySelector('main')!
        .append(Object.assign(document.createElement('input'), { id: 'planted' }));
      const axe = (
        window as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string }[] }> } }
      ).axe;
      return (await axe.run({ runOnly: { type: 'tag', values: ['wcag2a'] } })).violations.map((v) => v.id);
    });
    expect(planted).toContain('label');
    await audit.close();
    expect(found).toEqual({});
  });

  it('signs out, after which no page opens', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    for (const path of ['/mcp', '/traces', '/recall', '/audit', '/tools', '/tools/log.search']) {
      await page.goto(`${consoleUrl}${path}`);
      expect(new URL(page.url()).pathname).toBe('/login');
    }
  });
});

describe('web console without a session (no browser needed)', () => {
  beforeAll(async () => {
    stack ??= await spawnStack();
    consoleUrl = stack.ready.urls.console;
  }, STACK_SETUP_TIMEOUT_MS);

  it.each([
    '/mcp',
    '/mcp?tab=api',
    '/traces',
    '/traces/0123456789abcdef0123456789abcdef',
    '/recall',
    '/recall/audit',
    '/recall/files/f_x',
    '/audit',
    '/tools',
    '/tools/log.search',
    '/mcp/tokens/tok_x/revoke',
  ])('GET %s sends to sign-in', async (path) => {
    const res = await fetch(`${consoleUrl}${path}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
  });

  it.each([
    '/mcp/step-up',
    '/mcp/tokens',
    '/mcp/api-tokens',
    '/mcp/tokens/tok_x/revoke',
    '/recall/trigger',
    '/recall/files/f_x/download',
    '/tools/log.search',
    '/logout',
  ])('POST %s is refused', async (path) => {
    const res = await fetch(`${consoleUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({}),
    });
    expect(res.status).toBe(401);
  });
});
