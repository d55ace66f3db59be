import {
  BackendUnavailableError,
  NotFoundError,
  RateLimitedError,
  StepUpRequiredError,
  UnauthorizedError,
  UserInputError,
} from '@svc/errors';

// The console's side of identity's console API (docs/internal-api.md): every call carries the
// signed-in person's session, so identity decides what they may see and do. Identity's own error
// text never reaches a page: statuses become the console's errors, with wording of our own.

export interface Me {
  user_id: string;
  email: string | null;
  org_id: string;
  org_name: string | null;
  projects: { project_id: string; name: string }[];
  step_up_until: string | null;
}

export interface McpTokenItem {
  token_id: string;
  name: string;
  user_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  last_four: string;
  /** Set for a token an MCP client got by signing in with OAuth (its client_id). */
  oauth_client_id?: string | null;
}

/** What an MCP client's OAuth sign-in asks (the consent page). */
export interface OAuthRequest {
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  redirect_host: string | null;
  /** The redirect URI is on the person's own machine (loopback); false: a web site. */
  redirect_local: boolean;
  resource: string;
  scope: string;
  expires_at: string;
}

export interface IssuedToken {
  token: string;
  token_id: string;
  scope: string;
  expires_at: string;
}

export interface AuditRecord {
  seq: number;
  at: string;
  token_id: string | null;
  user_id: string | null;
  tool: string;
  transport: string;
  status: string;
  duration_ms: number;
  request_id: string;
  params?: unknown;
  hash: string;
  /** The person's email, when the user is of the session's org (identity looks it up). */
  user_email?: string | null;
  /** The token's name, when the token is of the session's org. */
  token_name?: string | null;
}

/** Who ids are (POST /console/v1/names): only the session's org's people and tokens are named. */
export interface Names {
  users: { user_id: string; email: string }[];
  tokens: { token_id: string; name: string }[];
}

export interface AuditPage {
  items: AuditRecord[];
  limit: number;
  has_more: boolean;
}

export interface AuditVerification {
  ok: boolean;
  checked: number;
  broken_at_seq?: number;
  reason?: string;
  code?: string;
  checkpoint?: { seq: number; at?: string } | null;
  problems?: { code: string; reason: string; broken_at_seq?: number }[];
  warnings?: string[];
}

/** Identity answered that the session is gone (expired, logged out, never was): sign in again. */
export class SessionEndedError extends UnauthorizedError {
  constructor() {
    super('invalid_session');
    this.message = 'Your session has ended. Sign in again.';
  }
}

/**
 * Identity's 409 browser_not_bound: this browser has not shown it began the sign-in yet. The
 * console sends it to `bindUrl` (identity's public bind address), which brings it back if it did.
 */
export class OAuthBrowserUnboundError extends Error {
  override readonly name = 'OAuthBrowserUnboundError';
  constructor(readonly bindUrl: string) {
    super('This browser has not yet shown that it began the sign-in.');
  }
}

/** Identity's 403 other_browser: the sign-in was begun, and is answered, in another browser. */
export class OAuthOtherBrowserError extends Error {
  override readonly name = 'OAuthOtherBrowserError';
  constructor() {
    super('This sign-in was started in another browser.');
  }
}

/** How long to wait, in words: seconds under a minute, else whole minutes (rounded up). */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * Identity's throttle held a password check back (its 429): nothing was checked, the person waits
 * `retryAfterSeconds` (sent on as Retry-After).
 */
export class TooManyAttemptsError extends RateLimitedError {
  constructor(retryAfterSeconds: number) {
    super(
      `Too many failed password attempts. Try again in ${waitInWords(retryAfterSeconds)}.`,
      retryAfterSeconds,
    );
  }
}

/** Without a usable Retry-After from identity: the longest lock of an account, 5 minutes. */
const DEFAULT_RETRY_AFTER_SECONDS = 300;

export interface IdentityApi {
  /** `clientAddress`: the browser's, which identity throttles the check under. */
  login(
    email: string,
    password: string,
    clientAddress: string,
  ): Promise<{ session_token: string; expires_at: string }>;
  me(session: string): Promise<Me>;
  logout(session: string): Promise<void>;
  stepUp(session: string, password: string, clientAddress: string): Promise<{ step_up_until: string }>;
  listMcpTokens(session: string, projectId: string): Promise<McpTokenItem[]>;
  createMcpToken(session: string, projectId: string, name: string, days: number): Promise<IssuedToken>;
  createApiToken(session: string, name: string, days: number): Promise<IssuedToken>;
  revokeMcpToken(session: string, tokenId: string): Promise<{ token_id: string; revoked_at: string }>;
  audit(session: string, projectId: string, page: { limit: number; beforeSeq?: number }): Promise<AuditPage>;
  verifyAudit(session: string, projectId: string): Promise<AuditVerification>;
  /** Emails and token names for a page of ids (one call, whatever the number of rows). */
  names(session: string, ids: { userIds: string[]; tokenIds: string[] }): Promise<Names>;
  /**
   * An MCP client's pending OAuth sign-in as the browser of `browser` (oauth-browser.ts) may see it;
   * NotFoundError when unknown, expired or finished, OAuthBrowserUnboundError or
   * OAuthOtherBrowserError when this browser may not answer it (the same for approve and deny).
   */
  oauthRequest(session: string, uid: string, browser: string): Promise<OAuthRequest>;
  /** Approves it for one project (needs the step-up); answers where the browser goes next. */
  approveOAuth(
    session: string,
    uid: string,
    projectId: string,
    browser: string,
  ): Promise<{ redirect_to: string }>;
  denyOAuth(session: string, uid: string, browser: string): Promise<{ redirect_to: string }>;
  /** The assistant's MCP token of minutes for the session's person and a project (internal secret). */
  assistantToken(
    session: string,
    projectId: string,
  ): Promise<{ token: string; token_id: string; expires_at: string }>;
  /** The console's own MCP token of the session for a project (internal secret). */
  toolToken(
    session: string,
    projectId: string,
  ): Promise<{ token: string; token_id: string; expires_at: string }>;
}

export function createIdentityApi(options: {
  identityUrl: string;
  internalSecret: string;
  timeoutMs?: number;
}): IdentityApi {
  const base = options.identityUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5_000;

  async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    auth: { session?: string; internal?: true; clientAddress?: string; oauthBrowser?: string },
    body?: unknown,
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (auth.oauthBrowser) headers['x-svc-oauth-browser'] = auth.oauthBrowser;
    if (auth.session) headers.authorization = `Bearer ${auth.session}`;
    if (auth.internal || auth.clientAddress) headers['x-internal-secret'] = options.internalSecret;
    // Identity believes this address only with the internal secret beside it.
    if (auth.clientAddress) headers['x-svc-client-address'] = auth.clientAddress;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new BackendUnavailableError('identity');
    }
    if (res.ok) return (res.status === 204 ? undefined : await res.json()) as T;
    throw await errorOf(res);
  }

  async function errorOf(res: Response): Promise<Error> {
    const answer = (await res.json().catch(() => ({}))) as { error?: string; bind_url?: unknown };
    if (res.status === 401) return new SessionEndedError();
    if (res.status === 403 && answer.error === 'step_up_required') return new StepUpRequiredError();
    if (res.status === 403 && answer.error === 'other_browser') return new OAuthOtherBrowserError();
    // Only an http(s) address: the console redirects the browser there.
    const bindUrl = typeof answer.bind_url === 'string' ? URL.parse(answer.bind_url) : null;
    if (
      res.status === 409 &&
      answer.error === 'browser_not_bound' &&
      /^https?:$/.test(bindUrl?.protocol ?? '')
    ) {
      return new OAuthBrowserUnboundError(bindUrl!.href);
    }
    if (res.status === 404) return new NotFoundError('Not found, or not in your organization.');
    if (res.status === 400) return new UserInputError('Identity refused the request as invalid.');
    if (res.status === 429) {
      const retryAfter = Number(res.headers.get('retry-after'));
      return new TooManyAttemptsError(
        Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : DEFAULT_RETRY_AFTER_SECONDS,
      );
    }
    return new BackendUnavailableError('identity');
  }

  const project = (id: string) => `/console/v1/projects/${encodeURIComponent(id)}`;
  return {
    login: (email, password, clientAddress) =>
      call('POST', '/console/v1/login', { clientAddress }, { email, password }),
    me: (session) => call('GET', '/console/v1/me', { session }),
    logout: (session) => call('POST', '/console/v1/logout', { session }),
    stepUp: (session, password, clientAddress) =>
      call('POST', '/console/v1/step-up', { session, clientAddress }, { password }),
    listMcpTokens: async (session, projectId) =>
      (await call<{ items: McpTokenItem[] }>('GET', `${project(projectId)}/mcp-tokens`, { session })).items,
    createMcpToken: (session, projectId, name, days) =>
      call('POST', `${project(projectId)}/mcp-tokens`, { session }, { name, days }),
    createApiToken: (session, name, days) =>
      call('POST', '/console/v1/api-tokens', { session }, { name, days }),
    revokeMcpToken: (session, tokenId) =>
      call('DELETE', `/console/v1/mcp-tokens/${encodeURIComponent(tokenId)}`, { session }),
    audit: (session, projectId, page) => {
      const query = new URLSearchParams({ limit: String(page.limit) });
      if (page.beforeSeq !== undefined) query.set('before_seq', String(page.beforeSeq));
      return call('GET', `${project(projectId)}/audit?${query}`, { session });
    },
    verifyAudit: (session, projectId) => call('GET', `${project(projectId)}/audit/verify`, { session }),
    names: (session, ids) =>
      call('POST', '/console/v1/names', { session }, { user_ids: ids.userIds, token_ids: ids.tokenIds }),
    oauthRequest: (session, uid, browser) =>
      call('GET', `/console/v1/oauth/interactions/${encodeURIComponent(uid)}`, {
        session,
        oauthBrowser: browser,
      }),
    approveOAuth: (session, uid, projectId, browser) =>
      call(
        'POST',
        `/console/v1/oauth/interactions/${encodeURIComponent(uid)}/approve`,
        { session, oauthBrowser: browser },
        { project_id: projectId },
      ),
    denyOAuth: (session, uid, browser) =>
      call('POST', `/console/v1/oauth/interactions/${encodeURIComponent(uid)}/deny`, {
        session,
        oauthBrowser: browser,
      }),
    assistantToken: (session, projectId) =>
      call(
        'POST',
        '/internal/v1/console-sessions/assistant-token',
        { internal: true },
        { session_token: session, project_id: projectId },
      ),
    toolToken: (session, projectId) =>
      call(
        'POST',
        '/internal/v1/console-sessions/tool-token',
        { internal: true },
        { session_token: session, project_id: projectId },
      ),
  };
}
