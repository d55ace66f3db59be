/** @jsxRuntime automatic @jsxImportSource preact */
import type { Me, OAuthRequest } from '../identity-api';
import { Bare, CsrfField, formatTime } from './layout';

export interface ConsentPageProps {
  uid: string;
  request: OAuthRequest;
  me: Me;
  csrf: string;
  now: Date;
  /** The project chosen before an error sent the form back. */
  projectId?: string;
  error?: string;
}

// Characters that change how the text around them reads (controls, bidirectional overrides and
// isolates, zero-width and other format characters, line separators), written out as [U+XXXX]:
// a client's name cannot pose as another ("edoC edualC" behind U+202E reads "Claude Code").
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
export const visibleText = (text: string): string =>
  text.replace(INVISIBLE, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);

/**
 * An MCP client asks to sign in: who it is (its own name, said to be unverified), where the
 * browser goes back to (a warning when that is a web site rather than this machine), the one
 * project it may read, and the password check a credential needs (the /mcp page's 5 minutes), then
 * allow or deny.
 */
export function ConsentPage({ uid, request, me, csrf, now, projectId, error }: ConsentPageProps) {
  const name = visibleText(request.client_name ?? request.client_id);
  const returnsTo = visibleText(request.redirect_host ?? request.redirect_uri);
  const until = me.step_up_until;
  const steppedUp = until !== null && Date.parse(until) > now.getTime();
  const base = `/oauth/consent/${encodeURIComponent(uid)}`;
  return (
    <Bare title="Connect an MCP client">
      {error ? (
        <p role="alert" class="notice error">
          {error}
        </p>
      ) : null}
      <p>
        <strong id="client-name">{name}</strong> asks to read the observability tools of one project of{' '}
        {me.org_name ?? 'your organization'} (scope <code>{request.scope}</code>, read-only).
      </p>
      <p class="muted" id="client-name-note">
        That is the name the client gave itself; nobody checked it. Allow only a client you just started
        connecting yourself.
      </p>
      {request.redirect_local ? null : (
        <p role="alert" class="notice warning" id="remote-redirect">
          The access goes to the web site <strong>{returnsTo}</strong>, not to an app on this computer. Allow
          only if you know that site and just connected it.
        </p>
      )}
      <dl class="consent-facts">
        <dt>Client</dt>
        <dd>
          <code id="client-id">{visibleText(request.client_id)}</code>
        </dd>
        <dt>Returns to</dt>
        <dd>
          <code id="redirect-host">{returnsTo}</code>
        </dd>
        <dt>Signed in as</dt>
        <dd>{me.email ?? me.user_id}</dd>
      </dl>
      {me.projects.length === 0 ? (
        <p>Your organization has no project yet: there is nothing to allow.</p>
      ) : (
        <form method="post" action={`${base}/approve`} id="consent">
          <CsrfField csrf={csrf} />
          <label for="consent-project">Project it may read</label>
          <select id="consent-project" name="project_id" required>
            {me.projects.map((p) => (
              <option key={p.project_id} value={p.project_id} selected={p.project_id === projectId}>
                {`${p.name} (${p.project_id})`}
              </option>
            ))}
          </select>
          {steppedUp ? (
            <p class="muted">Password confirmed until {formatTime(until)}.</p>
          ) : (
            <>
              <label for="consent-password">Password</label>
              <input
                id="consent-password"
                name="password"
                type="password"
                autocomplete="current-password"
                required
              />
              <small>
                A connected client holds a credential: confirm your password (the check holds for 5 minutes).
              </small>
            </>
          )}
          <button type="submit">Allow</button>
        </form>
      )}
      <form method="post" action={`${base}/deny`} id="deny">
        <CsrfField csrf={csrf} />
        <button type="submit" class="secondary">
          Deny
        </button>
      </form>
      <p class="muted">
        The client appears on the MCP tokens page of the project, where you can revoke it at any time.
      </p>
    </Bare>
  );
}

/**
 * Back to the client through the authorization server. A page rather than a redirect: the console's
 * CSP allows forms to post to the console only, and a browser applies that to every redirect
 * following the post, the client's own redirect URI included.
 */
export function ConsentDonePage({ to, allowed }: { to: string; allowed: boolean }) {
  // identity names its own resume address; anything but an http(s) URL is not followed.
  if (!/^https?:$/.test(URL.parse(to)?.protocol ?? '')) throw new Error('identity named no http(s) address');
  return (
    <Bare title={allowed ? 'Client connected' : 'Access denied'}>
      <meta http-equiv="refresh" content={`0;url=${to}`} />
      <p role="status">
        {allowed
          ? 'Returning to your MCP client…'
          : 'The client was told you denied access (access_denied). Returning to it…'}
      </p>
      <p>
        <a href={to} id="continue">
          Continue
        </a>
      </p>
    </Bare>
  );
}

/**
 * A sign-in this browser did not begin: only the browser the MCP client opened may answer it. What
 * someone who was sent the link by another person sees; nothing here can be approved.
 */
export function ConsentOtherBrowserPage() {
  return (
    <Bare title="Sign-in request from another browser">
      <p role="alert" class="notice error">
        This sign-in request was started in another browser, so it cannot be answered here (access_denied).
      </p>
      <p>
        An MCP client opens its sign-in in your browser itself. If you started connecting a client, go back to
        it and connect again. If someone sent you this link, do not use it: they may be trying to get access
        to your data.
      </p>
      <p>
        <a href="/mcp">Back to the console</a>
      </p>
    </Bare>
  );
}

/**
 * On the way to identity's bind address, where the browser shows it began the sign-in (identity
 * sends it back here). A page rather than a redirect: this page is usually reached by the redirect
 * that follows the login form, and browsers hold every redirect after a form post to the console's
 * CSP (`form-action 'self'`), identity's address included. A refresh is a navigation of its own.
 */
export function ConsentBindPage({ to }: { to: string }) {
  return (
    <Bare title="Checking this browser">
      <meta http-equiv="refresh" content={`0;url=${to}`} />
      <p role="status">Checking that this is the browser your MCP client opened…</p>
      <p>
        <a href={to} id="continue">
          Continue
        </a>
      </p>
    </Bare>
  );
}

/** An unknown, expired or finished sign-in request: the client must start again. */
export function ConsentGonePage() {
  return (
    <Bare title="Sign-in request expired">
      <p role="alert" class="notice error">
        This sign-in request has expired or was already answered (invalid_request). Go back to your MCP client
        and connect again.
      </p>
    </Bare>
  );
}
