import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  auth,
  Client,
  IssuerMismatchError,
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
import { type GatewayProcess, spawnGateway } from '../testing/gateway-process';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { CONDITION_CEILING_MS, eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  expectIsolatedOn,
  type ForeignRecords,
  foreignLogs,
  foreignRecords,
  ISOLATION_ROUTES,
  pastedToken,
  type TokenSource,
} from './isolation-matrix';
import {
  adminCall,
  adminOf,
  bearer,
  callRest,
  ingestBatch,
  MODERN_MCP_VERSION,
  type NewProject,
  newProject,
  postMcpInitialize,
} from './support';

// An MCP client that knows only the server's URL signs in with OAuth against the whole stack
// (`pnpm start` as a process): the official v2 client's OAuth flow discovers the gateway's protected
// resource metadata and identity's authorization server, registers itself (DCR), and sends the
// person's browser (the system's Chromium) through the console's sign-in, password check and consent
// pages; then it lists and calls tools with the token it got (reading only the project chosen, by
// the cross-project matrix), refreshes it once it expires, is refused by a gateway of another
// resource URL, and a revocation on the /mcp page makes its very next call a 401.

const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('OAuth browser test skipped: no Chromium (set CHROMIUM_PATH)');

const CLIENT_NAME = 'e2e OAuth client';
/** Short enough that the test sees an access token expire (the default is 10 minutes). */
const ACCESS_TOKEN_TTL_SECONDS = 60;
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
      // The longest client id without a break opportunity (a generated one has none about half
      // the time, a metadata document's URL is longer): the page must fit whatever it is.
      await checker.evaluate(
        (id) => {
          document.querySelector('#client-id')!.textContent = id;
        },
        `https://clients.example.com/${'W'.repeat(64)}`,
      );
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

/**
 * The client's side of OAuth, kept in memory; the authorization URL is handed to the test's browser.
 * The SDK checks `iss` in the callback (RFC 9207) but leaves `state` to the application: `callback`
 * below is that application's check.
 */
class BrowserHandoffProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  /** The state of the latest authorization request, which its callback must bring back unchanged. */
  sentState: string | undefined;
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
  state() {
    this.sentState = randomBytes(16).toString('base64url');
    return this.sentState;
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
/** Projects whose logs the sign-in (for the demo project) must never read: the person's own org's, another org's. */
const SAME_ORG = foreignRecords('same-org');
const OTHER_ORG = foreignRecords('other-org');
let sameOrg: NewProject;
let otherOrg: NewProject;
/** A gateway of another deployment sharing this identity: its resource URL is not the token's. */
let otherGateway: GatewayProcess;
const OTHER_RESOURCE_ORIGIN = 'https://mcp.other-deployment.example.test';

beforeAll(async () => {
  if (!executablePath) return;
  // The addresses the OAuth parties name each other by must be known before the stack starts.
  const [gateway, identity, consolePort] = await freePorts(3);
  stack = await spawnStack({
    env: {
      // The sign-in reads the demo project and checks isolation on records of its own: the demo
      // needs to exist, not be big.
      SVC_DEMO_SIZE: '0.05',
      SVC_MCP_HTTP_PORT: String(gateway),
      SVC_IDENTITY_INTERNAL_URL: `http://127.0.0.1:${identity}`,
      SVC_CONSOLE_PORT: String(consolePort),
      // As the stack names itself (its banner's URLs): the client checks the resource it is given.
      SVC_PUBLIC_URL: `http://localhost:${gateway}`,
      SVC_IDENTITY_PUBLIC_URL: `http://localhost:${identity}`,
      SVC_OAUTH_ISSUER: `http://localhost:${identity}/oauth`,
      SVC_CONSOLE_PUBLIC_URL: `http://localhost:${consolePort}`,
      SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS),
    },
  });
  sameOrg = await newProject(adminOf(stack), 'same org', stack.ready.org_id);
  const org = await adminCall<{ org_id: string }>(adminOf(stack), 'POST', '/internal/v1/admin/orgs', {
    name: 'Another org',
  });
  otherOrg = await newProject(adminOf(stack), 'other org', org.org_id);
  for (const [project, records] of [
    [sameOrg, SAME_ORG],
    [otherOrg, OTHER_ORG],
  ] as const) {
    const logs = foreignLogs(records);
    expect((await ingestBatch(stack.ready.urls.core, project.key, { logs })).status).toBe(200);
  }
  otherGateway = await spawnGateway({
    SVC_INTERNAL_SECRET: stack.internalSecret,
    SVC_IDENTITY_INTERNAL_URL: stack.ready.urls.identity,
    SVC_OBSERVABILITY_ENDPOINT: stack.ready.urls.core,
    SVC_PUBLIC_URL: OTHER_RESOURCE_ORIGIN,
    SVC_OAUTH_ISSUER: `http://localhost:${identity}/oauth`,
  });
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
  await otherGateway?.stop();
  await browser?.close();
  await new Promise((resolve) => (callback ? callback.close(resolve) : resolve(undefined)));
  await stack?.dispose();
});

const newClient = () =>
  new Client(
    { name: 'e2e-oauth', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_MCP_VERSION } } },
  );

/**
 * The client application's redirect handler: a callback is taken only with the state it sent (the
 * SDK then checks `iss` and redeems the code); anything else is refused before any exchange.
 */
async function handleCallback(
  transport: StreamableHTTPClientTransport,
  provider: BrowserHandoffProvider,
  params: URLSearchParams,
): Promise<void> {
  if (!provider.sentState || params.get('state') !== provider.sentState) {
    throw new Error('OAuth callback refused: its state is not the one this client sent');
  }
  await transport.finishAuth(params);
}

/** The sign-in as an OAuth client refreshes it: a new access token (and refresh token) each time. */
function oauthSource(provider: BrowserHandoffProvider, mcpUrl: URL): TokenSource {
  return {
    async authorization() {
      expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
      return bearer((await provider.tokens())!.access_token);
    },
  };
}

describeInBrowser('an MCP client that signs in with OAuth', () => {
  let mcpUrl: URL;
  let provider: BrowserHandoffProvider;
  let client: Client;

  it('signs in through the console; the callback must bring back its state and the issuer', async () => {
    mcpUrl = new URL(stack.ready.urls.gateway.replace(/\/+$/, '') + '/mcp');
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    provider = new BrowserHandoffProvider(redirectUrl);

    // No token yet: the 401 points the client at the metadata, and the client asks for sign-in.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(newClient().connect(first)).rejects.toThrow(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);
    expect(authorizationUrl.searchParams.get('state')).toBe(provider.sentState);

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
    expect(answer.get('code')).toEqual(expect.any(String));
    // RFC 9207 and RFC 6749: the issuer named, the state exactly as sent.
    expect(answer.get('iss')).toBe(`${new URL(authorizationUrl).origin}/oauth`);
    expect(answer.get('state')).toBe(provider.sentState);

    // A callback with another state (a forged or crossed redirect) is refused by the client; one
    // naming another issuer is refused by the SDK (RFC 9207). Neither redeems the code.
    const forged = new URLSearchParams(answer);
    forged.set('state', 'not-the-state-sent');
    await expect(handleCallback(first, provider, forged)).rejects.toThrow(/state/);
    const mixedUp = new URLSearchParams(answer);
    mixedUp.set('iss', 'https://attacker.example.test/oauth');
    await expect(handleCallback(first, provider, mixedUp)).rejects.toThrow(IssuerMismatchError);
    expect(await provider.tokens()).toBeUndefined();

    // The genuine callback redeems the very same code: it was never spent by the refused ones.
    await handleCallback(first, provider, answer);
    const tokens = (await provider.tokens())!;
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'mcp:read' });
    expect(tokens.expires_in).toBe(ACCESS_TOKEN_TTL_SECONDS);

    client = newClient();
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('log.aggregate');
    const called = await client.callTool({ name: 'log.aggregate', arguments: { group_by: 'level' } });
    expect(called.isError).toBeFalsy();
  });

  const cases: [string, () => [NewProject, ForeignRecords]][] = [
    ["the person's own org", () => [sameOrg, SAME_ORG]],
    ['another org', () => [otherOrg, OTHER_ORG]],
  ];
  describe.each(cases)('reads only the project chosen, not one of %s', (_org, foreign) => {
    it.each(ISOLATION_ROUTES)('%s', async (route) => {
      const [project, records] = foreign();
      await expectIsolatedOn(
        route,
        stack.ready.urls.gateway,
        { reader: oauthSource(provider, mcpUrl), owner: pastedToken(project.token) },
        records,
      );
    });
  });

  it('is refused by a gateway of another resource URL (401 invalid_token), accepted by its own', async () => {
    const access = (await provider.tokens())!.access_token;
    expect(
      (await callRest(stack.ready.urls.gateway, 'log.recent', { limit: 1 }, bearer(access))).status,
    ).toBe(200);
    const challenge = `Bearer resource_metadata="${OTHER_RESOURCE_ORIGIN}/.well-known/oauth-protected-resource/mcp", scope="mcp:read", error="invalid_token"`;
    const rest = await callRest(otherGateway.url, 'log.recent', { limit: 1 }, bearer(access));
    expect([rest.status, rest.headers.get('www-authenticate')]).toEqual([401, challenge]);
    const mcp = await postMcpInitialize(`${otherGateway.url}/mcp`, bearer(access));
    expect([mcp.status, mcp.headers.get('www-authenticate')]).toEqual([401, challenge]);
    // The same gateway takes a pasted token of the stack: only the OAuth token's resource differs.
    const pasted = await callRest(otherGateway.url, 'log.recent', { limit: 1 }, bearer(stack.ready.token!));
    expect(pasted.status).toBe(200);
  });

  it('once its access token expires: 401 invalid_token, then the client refreshes (rotating) and goes on', async () => {
    const stale = (await provider.tokens())!;
    const restWith = (token: string) =>
      callRest(stack.ready.urls.gateway, 'log.recent', { limit: 1 }, bearer(token));
    await eventually(
      'the access token expired',
      async () => (await restWith(stale.access_token)).status === 401,
      { pollMs: 2000 },
    );
    const refused = await restWith(stale.access_token);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The client's next call meets the same 401, refreshes and is answered.
    const called = await client.callTool({ name: 'log.aggregate', arguments: { group_by: 'level' } });
    expect(called.isError).toBeFalsy();
    const fresh = (await provider.tokens())!;
    expect(fresh.access_token).not.toBe(stale.access_token);
    expect(fresh.refresh_token).toEqual(expect.any(String));
    expect(fresh.refresh_token).not.toBe(stale.refresh_token);
    expect((await restWith(fresh.access_token)).status).toBe(200);
  });

  it('is listed on the /mcp page and, revoked there, refused on its very next call', async () => {
    const access = (await provider.tokens())!.access_token;
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

  it("refuses a consent link opened in a browser that did not begin the sign-in (someone else's link)", async () => {
    // The attacker's browser begins a sign-in for the registered client and stops at the console.
    const { client_id } = (await provider.clientInformation())!;
    const url = new URL(provider.authorizationUrl!.href);
    url.searchParams.set('client_id', client_id);
    url.searchParams.set('state', 'attacker');
    const attacker = await browser.newContext();
    try {
      const attackerPage = await attacker.newPage();
      await attackerPage.goto(url.href);
      await attackerPage.waitForURL(/\/login\?/);
      const consentPath = new URL(attackerPage.url()).searchParams.get('next')!;
      expect(consentPath).toMatch(/^\/oauth\/consent\//);
      // The victim, signed in to the console in their own browser, opens the link they were sent.
      await page.goto(`${stack.ready.urls.console}${consentPath}`);
      await page.waitForURL(/\/oauth\/interaction\/.+\/bind/);
      expect(await page.locator('body').textContent()).toContain('started in another browser');
      expect(await page.locator('#consent').count()).toBe(0);
    } finally {
      await attacker.close();
    }
  });
});
