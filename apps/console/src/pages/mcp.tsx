/** @jsxRuntime automatic @jsxImportSource preact */
import {
  claudeCodeCommand,
  claudeDesktopJson,
  curlExample,
  inspectorCommand,
  mcpCurlExample,
  mcpServersJson,
} from '@svc/client-config';
import type { IssuedToken, McpTokenItem } from '../identity-api';
import { Copyable } from './copyable';
import { CsrfField, formatTime, href, Layout, type PageContext } from './layout';

export type TokenTab = 'mcp' | 'api';

function Tabs({ ctx, tab }: { ctx: PageContext; tab: TokenTab }) {
  return (
    <nav aria-label="Token kinds" class="tabs">
      <ul>
        <li>
          <a href={href('/mcp', ctx.projectId)} aria-current={tab === 'mcp' ? 'page' : undefined}>
            MCP tokens
          </a>
        </li>
        <li>
          <a
            href={href('/mcp', ctx.projectId, { tab: 'api' })}
            aria-current={tab === 'api' ? 'page' : undefined}
          >
            General API tokens
          </a>
        </li>
      </ul>
    </nav>
  );
}

function statusOf(token: McpTokenItem, now: Date): string {
  if (token.revoked_at) return `revoked ${formatTime(token.revoked_at)}`;
  if (Date.parse(token.expires_at) <= now.getTime()) return 'expired';
  return 'active';
}

/** An OAuth client by where it lives: its metadata document's host, else its registered id. */
function clientHost(clientId: string): string {
  return URL.parse(clientId)?.host || clientId;
}

function TokenTable({ ctx, tokens, now }: { ctx: PageContext; tokens: McpTokenItem[]; now: Date }) {
  if (tokens.length === 0) return <p>No MCP token for this project yet.</p>;
  return (
    <div class="overflow-auto">
      <table id="mcp-tokens" class="records">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Ends in</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {[...tokens].reverse().map((t) => {
            const status = statusOf(t, now);
            return (
              <tr key={t.token_id} data-token-id={t.token_id}>
                <td data-label="Name">{t.name}</td>
                <td data-label="Ends in">
                  {t.oauth_client_id ? (
                    <span class="oauth-client" title={t.oauth_client_id}>
                      OAuth sign-in · <code>{clientHost(t.oauth_client_id)}</code>
                    </span>
                  ) : (
                    <code>…{t.last_four}</code>
                  )}
                </td>
                <td data-label="Created">{formatTime(t.created_at)}</td>
                <td data-label="Expires">{formatTime(t.expires_at)}</td>
                <td data-label="Last used">{t.last_used_at ? formatTime(t.last_used_at) : 'never'}</td>
                <td data-label="Status">{status}</td>
                <td class="actions">
                  {status === 'active' ? (
                    <a href={href(`/mcp/tokens/${encodeURIComponent(t.token_id)}/revoke`, ctx.projectId)}>
                      Revoke<span class="visually-hidden"> {t.name}</span>
                    </a>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function StepUpForm({ ctx, tab }: { ctx: PageContext; tab: TokenTab }) {
  return (
    <form method="post" action={href('/mcp/step-up', ctx.projectId, { tab })} id="step-up">
      <CsrfField csrf={ctx.csrf} />
      <p>A token is a credential: confirm your password to create one (the check holds for 5 minutes).</p>
      <label for="step-up-password">Password</label>
      <input id="step-up-password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Confirm password</button>
    </form>
  );
}

function CreateForm({ ctx, tab, until }: { ctx: PageContext; tab: TokenTab; until: string }) {
  const action = tab === 'mcp' ? href('/mcp/tokens', ctx.projectId) : href('/mcp/api-tokens', ctx.projectId);
  return (
    <form method="post" action={action} id="create-token">
      <CsrfField csrf={ctx.csrf} />
      <p class="muted">Password confirmed until {formatTime(until)}.</p>
      <label for="token-name">Name</label>
      <input
        id="token-name"
        name="name"
        required
        maxLength={200}
        placeholder="e.g. Claude Code on my laptop"
      />
      <label for="token-days">Valid for (days)</label>
      <input id="token-days" name="days" type="number" min={1} max={3650} value="90" required />
      <button type="submit">{tab === 'mcp' ? 'Create MCP token' : 'Create API token'}</button>
    </form>
  );
}

export interface McpPageProps {
  ctx: PageContext;
  tab: TokenTab;
  tokens: McpTokenItem[];
  now: Date;
  notice?: string;
  error?: string;
}

export function McpPage({ ctx, tab, tokens, now, notice, error }: McpPageProps) {
  const until = ctx.me.step_up_until;
  const steppedUp = until !== null && Date.parse(until) > now.getTime();
  return (
    <Layout ctx={ctx} section="mcp" title={tab === 'mcp' ? 'MCP tokens' : 'General API tokens'}>
      <Tabs ctx={ctx} tab={tab} />
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" class="notice error">
          {error}
        </p>
      ) : null}
      {tab === 'mcp' ? (
        <>
          <p>
            MCP clients (Claude, Cursor, the Inspector, scripts over REST) connect to{' '}
            <code>{`${ctx.gatewayUrl}/mcp`}</code> with one of these tokens. Each reads this project only;
            revoking one takes effect on its next call.
          </p>
          <TokenTable ctx={ctx} tokens={tokens} now={now} />
        </>
      ) : (
        <p>
          General API tokens have scope <code>api:read</code> and no project.{' '}
          <strong>MCP refuses them</strong>, and so do the REST tool routes: for an assistant or a script that
          calls tools, create an MCP token instead.
        </p>
      )}
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">{tab === 'mcp' ? 'Create an MCP token' : 'Create a general API token'}</h2>
        {steppedUp ? <CreateForm ctx={ctx} tab={tab} until={until} /> : <StepUpForm ctx={ctx} tab={tab} />}
      </section>
    </Layout>
  );
}

/** The one answer that holds a new token: shown once, never stored or logged by the console. */
export function TokenCreatedPage({
  ctx,
  issued,
  kind,
}: {
  ctx: PageContext;
  issued: IssuedToken;
  kind: TokenTab;
}) {
  const endpoint = { mcpUrl: `${ctx.gatewayUrl}/mcp`, token: issued.token };
  return (
    <Layout ctx={ctx} section="mcp" title="Token created">
      <p role="alert" class="notice warning">
        Copy the token now: it is shown only this once. Keep files that contain it out of version control.
      </p>
      <label for="new-token">{kind === 'mcp' ? 'MCP token' : 'General API token'}</label>
      <div class="token-row">
        <input id="new-token" readOnly value={issued.token} class="token-value" />
        <button type="button" class="copy" data-copy="new-token">
          Copy token
        </button>
      </div>
      <p class="muted">
        Scope <code>{issued.scope}</code>, expires {formatTime(issued.expires_at)}.
      </p>
      {kind === 'mcp' ? (
        <section aria-labelledby="configs-heading">
          <h2 id="configs-heading">Connect a client</h2>
          <Copyable id="config-claude-code" label="Claude Code" text={claudeCodeCommand(endpoint)} />
          <Copyable
            id="config-claude-desktop"
            label="Claude Desktop (claude_desktop_config.json)"
            text={claudeDesktopJson(endpoint)}
          />
          <Copyable id="config-cursor" label="Cursor (.cursor/mcp.json)" text={mcpServersJson(endpoint)} />
          <Copyable id="config-inspector" label="MCP Inspector" text={inspectorCommand(endpoint)} />
          <Copyable
            id="config-mcp-curl"
            label="One MCP call with curl (2026-07-28, no session)"
            text={mcpCurlExample(endpoint)}
          />
          <Copyable id="config-curl" label="REST (curl)" text={curlExample(ctx.gatewayUrl, issued.token)} />
        </section>
      ) : (
        <p>This token has no project and scope api:read: MCP and the REST tool routes refuse it (401).</p>
      )}
      <p>
        <a href={href('/mcp', ctx.projectId, kind === 'api' ? { tab: 'api' } : {})}>
          Done: back to the tokens
        </a>
      </p>
    </Layout>
  );
}

export function RevokePage({ ctx, token }: { ctx: PageContext; token: McpTokenItem }) {
  return (
    <Layout ctx={ctx} section="mcp" title="Revoke a token">
      <p>
        Revoke <strong>{token.name}</strong> (ending in <code>…{token.last_four}</code>)? Clients using it get
        401 from their next call on. This cannot be undone.
      </p>
      <form
        method="post"
        action={href(`/mcp/tokens/${encodeURIComponent(token.token_id)}/revoke`, ctx.projectId)}
      >
        <CsrfField csrf={ctx.csrf} />
        <div class="grid">
          <a href={href('/mcp', ctx.projectId)} class="cancel">
            Cancel
          </a>
          <button type="submit" class="danger">
            Revoke token
          </button>
        </div>
      </form>
    </Layout>
  );
}
