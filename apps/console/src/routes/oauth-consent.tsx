/** @jsxRuntime automatic @jsxImportSource preact */
import { NotFoundError, StepUpRequiredError } from '@svc/errors';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { browserAddressOf } from '../client-address';
import type { ConsoleDeps } from '../console-deps';
import {
  OAuthBrowserUnboundError,
  OAuthOtherBrowserError,
  type OAuthRequest,
  SessionEndedError,
  TooManyAttemptsError,
} from '../identity-api';
import { consentBrowser } from '../oauth-browser';
import { sendPage } from '../pages/layout';
import {
  ConsentBindPage,
  ConsentDonePage,
  ConsentGonePage,
  ConsentOtherBrowserPage,
  ConsentPage,
} from '../pages/oauth-consent';
import { sessionOf } from '../session';

const UID = /^[A-Za-z0-9_-]{1,100}$/;
const approveForm = z.object({
  project_id: z.string().min(1).max(100),
  password: z.string().max(1024).optional(),
});

/**
 * The OAuth consent page (`/oauth/consent/<uid>`), where identity's authorization server sends an
 * MCP client's sign-in: behind the console session like every page (signing in first comes back
 * here), then step-up, one project of the person's org, allow or deny. Identity decides each step;
 * nothing is issued until it approves.
 *
 * Only in the browser that began the sign-in (oauth-browser.ts): the first visit sends the browser
 * (by a page, ConsentBindPage) to identity's bind address, which brings it back here if it holds
 * identity's cookie of the start;
 * any other browser (someone sent it the link) gets a page saying so, and nothing to approve.
 */
export function oauthConsentRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  const { identity } = deps;
  const browsers = consentBrowser({ publicUrl: deps.config.publicUrl });

  /** The sign-in as this browser may see it, or undefined once a page answered instead. */
  async function requestFor(req: Request, res: Response, uid: string): Promise<OAuthRequest | undefined> {
    const browser = browsers.proof(req, res, uid);
    try {
      return await identity.oauthRequest(sessionOf(res).token, uid, browser);
    } catch (err) {
      // A GET goes to identity to show it began the sign-in (it comes back here); a form never does.
      if (err instanceof OAuthBrowserUnboundError && req.method === 'GET') {
        sendPage(res, <ConsentBindPage to={err.bindUrl} />);
        return undefined;
      }
      if (!refusedHere(res, err)) throw err;
      return undefined;
    }
  }

  /** The pages for a sign-in this browser may not answer; false for any other error. */
  function refusedHere(res: Response, err: unknown): boolean {
    if (err instanceof OAuthBrowserUnboundError || err instanceof OAuthOtherBrowserError) {
      deps.logger.warn(
        { security_event: 'console_oauth_other_browser', user_id: sessionOf(res).me.user_id },
        'OAuth consent page opened in a browser that did not begin the sign-in',
      );
      sendPage(res, <ConsentOtherBrowserPage />, 403);
      return true;
    }
    if (err instanceof NotFoundError) {
      sendPage(res, <ConsentGonePage />, 404);
      return true;
    }
    return false;
  }

  async function show(
    req: Request,
    res: Response,
    extra: { error?: string; status?: number; projectId?: string } = {},
  ) {
    const uid = String(req.params.uid ?? '');
    const { token, me, csrf } = sessionOf(res);
    if (!UID.test(uid)) return sendPage(res, <ConsentGonePage />, 404);
    const request = await requestFor(req, res, uid);
    if (!request) return;
    const fresh = extra.error ? await identity.me(token) : me;
    sendPage(
      res,
      <ConsentPage
        uid={uid}
        request={request}
        me={fresh}
        csrf={csrf}
        now={deps.now()}
        projectId={extra.projectId}
        error={extra.error}
      />,
      extra.status,
    );
  }

  router.get('/oauth/consent/:uid', (req, res) => show(req, res));

  router.post('/oauth/consent/:uid/approve', async (req, res) => {
    const uid = req.params.uid;
    if (!UID.test(uid)) return sendPage(res, <ConsentGonePage />, 404);
    const form = approveForm.safeParse(req.body);
    if (!form.success) return show(req, res, { error: 'Choose a project.', status: 400 });
    const { token, me } = sessionOf(res);
    const projectId = form.data.project_id;
    try {
      if (form.data.password) await identity.stepUp(token, form.data.password, browserAddressOf(req));
    } catch (err) {
      if (err instanceof SessionEndedError)
        return show(req, res, { error: 'Wrong password.', status: 401, projectId });
      if (err instanceof TooManyAttemptsError) {
        res.set('Retry-After', String(err.retryAfterSeconds));
        return show(req, res, { error: err.message, status: 429, projectId });
      }
      throw err;
    }
    let answer: { redirect_to: string };
    try {
      answer = await identity.approveOAuth(token, uid, projectId, browsers.proof(req, res, uid));
    } catch (err) {
      if (err instanceof OAuthBrowserUnboundError || err instanceof OAuthOtherBrowserError) {
        refusedHere(res, err);
        return;
      }
      if (err instanceof StepUpRequiredError) {
        return show(req, res, {
          error: 'Confirm your password first (the check holds for 5 minutes).',
          status: 403,
          projectId,
        });
      }
      // An unknown request, or a project not of the person's org: nothing was issued.
      if (err instanceof NotFoundError) {
        const request = await identity
          .oauthRequest(token, uid, browsers.proof(req, res, uid))
          .catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
        if (!request) return sendPage(res, <ConsentGonePage />, 404);
        return show(req, res, { error: 'No such project in your organization.', status: 404 });
      }
      throw err;
    }
    deps.logger.info(
      { event: 'console_oauth_consent', allowed: true, user_id: me.user_id, project_id: projectId },
      'MCP client allowed',
    );
    sendPage(res, <ConsentDonePage to={answer.redirect_to} allowed />);
  });

  router.post('/oauth/consent/:uid/deny', async (req, res) => {
    const uid = req.params.uid;
    if (!UID.test(uid)) return sendPage(res, <ConsentGonePage />, 404);
    let answer: { redirect_to: string };
    try {
      answer = await identity.denyOAuth(sessionOf(res).token, uid, browsers.proof(req, res, uid));
    } catch (err) {
      if (refusedHere(res, err)) return;
      throw err;
    }
    deps.logger.info(
      { event: 'console_oauth_consent', allowed: false, user_id: sessionOf(res).me.user_id },
      'MCP client denied',
    );
    sendPage(res, <ConsentDonePage to={answer.redirect_to} allowed={false} />);
  });

  return router;
}
