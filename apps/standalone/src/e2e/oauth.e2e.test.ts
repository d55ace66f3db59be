import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  OAuthError,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { findChromium } from '@svc/browser-testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freePorts } from '../testing/free-ports';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  adminOf,
  bearer,
  callRest,
  ingestBatch,
  MODERN_MCP_VERSION,
  type NewProject,
  newProject,
} from './support';

// An MCP client that knows only the server's URL signs in with OAuth against the whole stack
// (`pnpm start` as a process): the official v2 client's OAuth flow discovers the gateway's protected
// resource metadata and identity's authorization server, registers itself (DCR), and sends the
// person's browser (the system's Chromium) through the console's sign-in, password check and consent
// pages; then it lists and calls tools with the token it got, and a revocation on the /mcp page
// makes its very next call a 401.

const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('OAuth browser test skipped: no Chromium (set CHROMIUM_PATH)');

const CLIENT_NAME = 'e2e OAuth client';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * What keeps the consent page from reading well at a desktop's and a phone's width: serious or
 * critical WCAG 2 A/AA violations (axe-core) and a page wider than the window.
 */
async function consentPageProblems(url: string): Promise<string[]> {
  // Its own context with the same cookies: axe is a script the console's CSP (rightly) refuses.
  const audit = await browser.newContext({
    bypassCSP: true,
    storageState: await page.context().storageState(),
  });
  const checker = await audit.newPage();
  const problems: string[] = [];
  try {
    for (const width of [1280, 390]) {
      await checker.setViewportSize({ width, height: 900 });
      await checker.goto(url);
      await checker.addScriptTag({ path: AXE });
      const found = await checker.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: { run(o: unknown): Promise<{ violations: { id: string; impact: string }[] }> };
          }
        ).axe;
        const result = await axe.run({
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
        });
        const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        const wide = document.documentElement.scrollWidth > document.documentElement.clientWidth;
        return [...serious.map((v) => v.id), ...(wide ? ['page wider than the window'] : [])];
      });
      problems.push(...found.map((p) => `${width} px: ${p}`));
    }
  } finally {
    await audit.close();
  }
  return problems;
}

/** The client's side of OAuth, kept in memory; the authorization URL is handed to the test's browser. */
class BrowserHandoffProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = '';
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let stack: SpawnedStack;
let browser: Browser;
let page: Page;
let callback: Server;
const callbacks: URLSearchParams[] = [];
/** A second project of the person's own org, whose logs the sign-in (for the demo project) must never read. */
const MARKER = 'only-in-the-other-project';
let other: NewProject;

beforeAll(async () => {
  if (!executablePath) return;
  // The addresses the OAuth parties name each other by must be known before the stack starts.
  const [gateway, identity, consolePort] = await freePorts(3);
  stack = await spawnStack({
    env: {
      SVC_MCP_HTTP_PORT: String(gateway),
      SVC_IDENTITY_INTERNAL_URL: `http://127.0.0.1:${identity}`,
      SVC_CONSOLE_PORT: String(consolePort),
      // As the stack names itself (its banner's URLs): the client checks the resource it is given.
      SVC_PUBLIC_URL: `http://localhost:${gateway}`,
      SVC_IDENTITY_PUBLIC_URL: `http://localhost:${identity}`,
      SVC_OAUTH_ISSUER: `http://localhost:${identity}/oauth`,
      SVC_CONSOLE_PUBLIC_URL: `http://localhost:${consolePort}`,
    },
  });
  other = await newProject(adminOf(stack), 'other', stack.ready.org_id);
  const logs = [0, 1, 2].map((i) => ({
    timestamp: Date.now() - i * 1000,
    level: 'ERROR',
    message: `${MARKER} #${i}`,
    source: 'backend',
  }));
  expect((await ingestBatch(stack.ready.urls.core, other.key, { logs })).status).toBe(200);
  // The client's redirect URI: a loopback listener, as a native client has.
  callback = createServer((req, res) => {
    // Only the redirect itself (the browser also asks for a favicon).
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') callbacks.push(url.searchParams);
    res.end('You can close this window.');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
  const context = await browser.newContext();
  context.setDefaultTimeout(CONDITION_CEILING_MS);
  context.setDefaultNavigationTimeout(CONDITION_CEILING_MS);
  page = await context.newPage();
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (callback ? callback.close(resolve) : resolve(undefined)));
  await stack?.dispose();
});

const newClient = () =>
  new Client(
    { name: 'e2e-oauth', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_MCP_VERSION } } },
  );

describeInBrowser('an MCP client that signs in with OAuth', () => {
  it('signs in through the console, lists and calls tools, and is refused once revoked on /mcp', async () => {
    const mcpUrl = new URL(stack.ready.urls.gateway.replace(/\/+$/, '') + '/mcp');
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const provider = new BrowserHandoffProvider(redirectUrl);

    // No token yet: the 401 points the client at the metadata, and the client asks for sign-in.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(newClient().connect(first)).rejects.toThrow(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);

    // The person: sign in, confirm the password, choose the project, allow.
    const login = stack.ready.console_login!;
    await page.goto(authorizationUrl.href);
    await page.waitForURL(/\/login\?/);
    await page.getByLabel('Email').fill(login.email);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/consent\//);
    expect(await consentPageProblems(page.url())).toEqual([]);
    expect(await page.locator('#client-name').textContent()).toBe(CLIENT_NAME);
    expect(await page.locator('#redirect-host').textContent()).toBe(new URL(redirectUrl).host);
    await page.getByLabel('Project it may read').selectOption(stack.ready.project_id);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUrl));
    const answer = callbacks.at(-1)!;
    expect(answer.toString()).toMatch(/(^|&)code=/);

    // The client finishes (checking iss and state) and connects with its token.
    await first.finishAuth(answer);
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('log.aggregate');
    const called = await client.callTool({ name: 'log.aggregate', arguments: { group_by: 'level' } });
    expect(called.isError).toBeFalsy();
    const access = (await provider.tokens())!.access_token;
    // The same token over REST reads the chosen project only, not the org's other one.
    const search = (authorization: string) =>
      callRest(stack.ready.urls.gateway, 'log.search', { search: MARKER }, authorization);
    const mine = await search(bearer(access));
    expect(mine.status).toBe(200);
    expect(mine.body.items).toEqual([]);
    expect(((await search(bearer(other.token))).body.items as unknown[]).length).toBe(3);

    // Listed on the /mcp page under the client's name; revoked there, the next call is a 401.
    await page.goto(`${stack.ready.urls.console}/mcp?project=${stack.ready.project_id}`);
    const row = page.locator('#mcp-tokens tr', { hasText: CLIENT_NAME });
    expect(await row.textContent()).toContain('OAuth sign-in');
    await row.getByRole('link', { name: /Revoke/ }).click();
    await page.getByRole('button', { name: 'Revoke token' }).click();
    expect(await page.getByRole('status').textContent()).toContain('revoked');
    expect(
      (await callRest(stack.ready.urls.gateway, 'log.recent', { limit: 1 }, bearer(access))).status,
    ).toBe(401);
    // A call, not tools/list: the v2 client answers a repeated tools/list from its cache (ttlMs).
    // The 401 makes it try its refresh token, which died with the sign-in: invalid_grant.
    await expect(
      client.callTool({ name: 'log.aggregate', arguments: { group_by: 'level' } }),
    ).rejects.toThrow(OAuthError);
    await client.close().catch(() => undefined);
  });
});
