/** @jsxRuntime automatic @jsxImportSource preact */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type BodyRefusalWording, fromBodyParser, NotFoundError, toHttpError } from '@svc/errors';
import type { Logger } from '@svc/tool-kit';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { ConsoleDeps } from './console-deps';
import { Bare, sendPage } from './pages/layout';
import { assistantRoutes } from './routes/assistant';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { mcpRoutes } from './routes/mcp';
import { oauthConsentRoutes } from './routes/oauth-consent';
import { overviewRoutes } from './routes/overview';
import { recallRoutes } from './routes/recall';
import { toolRoutes } from './routes/tools';
import { traceRoutes } from './routes/traces';
import { requireSession } from './session';
import { viewRoutes } from './views/view-routes';

const require = createRequire(import.meta.url);
const PICO_CSS = require.resolve('@picocss/pico/css/pico.min.css');
const STATIC_DIR = fileURLToPath(new URL('../static/', import.meta.url));

// Scripts and styles from this origin only; inline scripts and styles never run (the waterfall's
// bars are SVG geometry, not style attributes). No framing, no form posts elsewhere.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/** The web console: server-rendered pages over identity's console API and a gateway's tools. */
export function createConsoleApp(deps: ConsoleDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Only a configured reverse proxy's X-Forwarded-For names the browser (client-address.ts).
  app.set('trust proxy', deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false);
  app.use((_req, res, next) => {
    res.set({
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      // Not no-referrer: under it browsers send `Origin: null` with our own form posts, which the
      // CSRF check must then refuse. same-origin still tells other sites nothing.
      'referrer-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
    });
    next();
  });
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  // dotfiles: the package lives under node_modules/.pnpm, a dot directory send() refuses by default.
  // Tool views and their host script: code, no data (a view gets its answer over the host bridge).
  app.use(viewRoutes());
  app.get('/static/pico.min.css', (_req, res) => res.sendFile(PICO_CSS, { maxAge: '1h', dotfiles: 'allow' }));
  app.use('/static', express.static(deps.staticDir ?? STATIC_DIR, { maxAge: '1h', index: false }));
  // Every page names its icon; this is for what names none (a JSON answer opened in a browser).
  app.get('/favicon.ico', (_req, res) =>
    res.set('cache-control', 'public, max-age=86400').redirect(301, '/static/favicon.svg'),
  );
  app.use(express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 200 }));
  app.get('/', (_req, res) => res.redirect(303, '/overview'));

  app.use(authRoutes(deps));
  app.use(requireSession(deps.cookies, deps.identity));
  app.use(overviewRoutes(deps));
  app.use(mcpRoutes(deps));
  app.use(oauthConsentRoutes(deps));
  // Each page group's routes (one line each).
  app.use(traceRoutes(deps));
  app.use(auditRoutes(deps));
  app.use(toolRoutes(deps));
  app.use(recallRoutes(deps));
  app.use(assistantRoutes(deps));
  app.use(() => {
    throw new NotFoundError('No such page.');
  });
  app.use(errorPage(deps.logger));
  return app;
}

/**
 * The form parser's refusals: a body over the limit once inflated, or with too many fields, is 413;
 * one that cannot be read (a corrupt gzip body, an unknown Content-Encoding or charset) is 400.
 * Only what the parser marked as its own: any other error is the console's, shown as such.
 */
const FORM_BODY_WORDING: BodyRefusalWording = {
  tooLarge: 'The form is too large: at most 256 KB in 200 fields.',
  unreadable: 'The form could not be read: send it again from the page.',
  onlyMarked: true,
};

/** Errors as a page: our own wording by status (the error hierarchy's messages are safe to show). */
function errorPage(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const answer = toHttpError(fromBodyParser(err, FORM_BODY_WORDING) ?? err);
    if (answer.status >= 500) logger.error({ err, path: req.path }, 'console page failed');
    if (res.headersSent) return;
    const message = (answer.body as { message?: string }).message ?? 'Something went wrong.';
    sendPage(
      res,
      <Bare title={answer.status === 404 ? 'Not found' : 'Something went wrong'}>
        <p role="alert">{message}</p>
        <p>
          <a href="/mcp">Back to the console</a>
        </p>
      </Bare>,
      answer.status,
    );
  };
}
