import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '@svc/browser-testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { adminCall, adminOf, bearer, callRest, connectMcp } from './support';

// The web console in the system's Chromium against the whole stack (`pnpm start` as a process):
// sign in, step up, create an MCP token and use it from the MCP SDK client, revoke it and see that
// client refused, and the other pages. Every page is photographed for review under
// apps/standalone/test-output/console/ (not committed).

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
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
}, 180_000);

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
});
