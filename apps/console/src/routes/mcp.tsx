/** @jsxRuntime automatic @jsxImportSource preact */
import { StepUpRequiredError } from '@svc/errors';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { browserAddressOf } from '../client-address';
import type { ConsoleDeps } from '../console-deps';
import { SessionEndedError, TooManyAttemptsError } from '../identity-api';
import { pageContext } from '../page-context';
import type { PageContext } from '../pages/layout';
import { href, sendPage } from '../pages/layout';
import { McpPage, RevokePage, TokenCreatedPage, type TokenTab } from '../pages/mcp';
import { sessionOf } from '../session';

/** Identity's step-up refusal in the console's words: what to do on this page. */
const STEP_UP_FIRST =
  'Confirm your password first: creating a token needs a check made in the last 5 minutes.';

const tokenForm = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Give the token a name.')
    .max(200, 'The name is too long (200 characters at most).'),
  days: z.coerce
    .number({ error: 'Validity is a number of days.' })
    .int('Validity is a whole number of days.')
    .min(1, 'Validity is 1 day at least.')
    .max(3650, 'Validity is 3650 days at most.'),
});
const stepUpForm = z.object({ password: z.string().min(1).max(1024) });

const tabOf = (req: Request): TokenTab => (req.query.tab === 'api' ? 'api' : 'mcp');

/** The MCP page (`/mcp`): the project's tokens, step-up, create (shown once), revoke. */
export function mcpRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  const { identity } = deps;

  async function render(
    req: Request,
    res: Response,
    ctx: PageContext,
    extra: { error?: string; status?: number; tab?: TokenTab } = {},
  ) {
    const tab = extra.tab ?? tabOf(req);
    const tokens = tab === 'mcp' ? await identity.listMcpTokens(sessionOf(res).token, ctx.projectId) : [];
    const revoked =
      typeof req.query.revoked === 'string'
        ? tokens.find((t) => t.token_id === req.query.revoked)
        : undefined;
    sendPage(
      res,
      <McpPage
        ctx={ctx}
        tab={tab}
        tokens={tokens}
        now={deps.now()}
        notice={revoked ? `Token "${revoked.name}" revoked.` : undefined}
        error={extra.error}
      />,
      extra.status,
    );
  }

  router.get('/mcp', async (req, res) => {
    await render(req, res, pageContext(deps, req, res));
  });

  router.post('/mcp/step-up', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const form = stepUpForm.safeParse(req.body);
    if (!form.success) return render(req, res, ctx, { error: 'Enter your password.', status: 400 });
    try {
      await identity.stepUp(sessionOf(res).token, form.data.password, browserAddressOf(req));
    } catch (err) {
      // A wrong password is identity's 401 on a live session (the session itself was checked);
      // identity logs it, and a throttled check, as security events.
      if (err instanceof SessionEndedError) {
        return render(req, res, ctx, { error: 'Wrong password.', status: 401 });
      }
      if (err instanceof TooManyAttemptsError) {
        res.set('Retry-After', String(err.retryAfterSeconds));
        return render(req, res, ctx, { error: err.message, status: 429 });
      }
      throw err;
    }
    res.redirect(303, href('/mcp', ctx.projectId, { tab: tabOf(req) === 'api' ? 'api' : undefined }));
  });

  async function create(req: Request, res: Response, kind: TokenTab) {
    const ctx = pageContext(deps, req, res);
    const form = tokenForm.safeParse(req.body);
    if (!form.success) {
      return render(req, res, ctx, { tab: kind, error: form.error.issues[0]?.message, status: 400 });
    }
    const session = sessionOf(res).token;
    try {
      const issued =
        kind === 'mcp'
          ? await identity.createMcpToken(session, ctx.projectId, form.data.name, form.data.days)
          : await identity.createApiToken(session, form.data.name, form.data.days);
      deps.logger.info(
        {
          event: 'console_token_created',
          kind,
          token_id: issued.token_id,
          user_id: ctx.me.user_id,
          project_id: ctx.projectId,
        },
        'token created',
      );
      sendPage(res, <TokenCreatedPage ctx={ctx} issued={issued} kind={kind} />, 201);
    } catch (err) {
      if (err instanceof StepUpRequiredError)
        return render(req, res, ctx, { tab: kind, error: STEP_UP_FIRST, status: 403 });
      throw err;
    }
  }
  router.post('/mcp/tokens', (req, res) => create(req, res, 'mcp'));
  router.post('/mcp/api-tokens', (req, res) => create(req, res, 'api'));

  async function tokenOf(req: Request, res: Response, ctx: PageContext) {
    const tokens = await identity.listMcpTokens(sessionOf(res).token, ctx.projectId);
    return tokens.find((t) => t.token_id === req.params.token_id);
  }

  router.get('/mcp/tokens/:token_id/revoke', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const token = await tokenOf(req, res, ctx);
    if (!token) return render(req, res, ctx, { error: 'No such token in this project.', status: 404 });
    sendPage(res, <RevokePage ctx={ctx} token={token} />);
  });

  router.post('/mcp/tokens/:token_id/revoke', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    // Only tokens of the page's project, so a form of one project never revokes another's.
    const token = await tokenOf(req, res, ctx);
    if (!token) return render(req, res, ctx, { error: 'No such token in this project.', status: 404 });
    await identity.revokeMcpToken(sessionOf(res).token, token.token_id);
    deps.logger.info(
      {
        event: 'console_token_revoked',
        token_id: token.token_id,
        user_id: ctx.me.user_id,
        project_id: ctx.projectId,
      },
      'token revoked',
    );
    res.redirect(303, href('/mcp', ctx.projectId, { revoked: token.token_id }));
  });

  return router;
}
