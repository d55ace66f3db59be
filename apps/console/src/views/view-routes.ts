import express, { type Router } from 'express';
import { viewDocument } from './tool-views';
import { viewHostScript } from './view-host-script';

// The two things a page needs to draw a tool's answer with its view: the view's HTML (framed by
// the console's pages only, sandboxed even when opened on its own) and the host script.
// Neither holds data (the answer reaches the view over the host bridge), so neither needs a session.

const VIEW_CSP = /http-equiv="Content-Security-Policy" content="([^"]+)"/;
/** Views and the host script change only with a release of the console. */
const CACHE = 'public, max-age=3600';

/**
 * The view's own policy (no network, its script and style by hash) as a header too, plus: only the
 * console may frame it, and it runs sandboxed with scripts only (an opaque origin, no access to the
 * console's cookies or pages) however it is opened, a tab of its own included.
 */
export function viewPolicy(html: string): string {
  const own = VIEW_CSP.exec(html)?.[1];
  if (!own) throw new Error('a view without its Content-Security-Policy');
  return `${own}; frame-ancestors 'self'; sandbox allow-scripts`;
}

export function viewRoutes(): Router {
  const router = express.Router();
  router.get('/views/:file', (req, res, next) => {
    const name = /^([a-z-]+)\.html$/.exec(req.params.file)?.[1];
    const html = name === undefined ? undefined : viewDocument(name);
    if (html === undefined) return next();
    // The console's page headers (DENY, its own CSP) are for pages: a view is framed by them.
    res.removeHeader('x-frame-options');
    res
      .set({ 'content-security-policy': viewPolicy(html), 'cache-control': CACHE })
      .type('html')
      .send(html);
  });
  router.get('/static/view-host.js', async (_req, res) => {
    res
      .set('cache-control', CACHE)
      .type('js')
      .send(await viewHostScript());
  });
  return router;
}
