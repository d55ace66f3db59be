import { parseBearer, principalFromIntrospection, tokenFingerprint } from '@svc/auth';
import { UnauthorizedError } from '@svc/errors';
import type { IdentityClient } from '@svc/identity-client';
import type { Metrics } from '@svc/metrics';
import type { Logger, Principal } from '@svc/tool-kit';
import type { Request, RequestHandler, Response } from 'express';

export interface AuthenticateOptions {
  identity: IdentityClient;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** This gateway's MCP resource URL: an OAuth access token issued for another one is refused. */
  resource: string;
}

/** The credential part of an Authorization header, for a fingerprint even when malformed. */
function presentedCredential(header: string | undefined): string | undefined {
  const parts = header?.trim().split(/\s+/);
  return parts && parts.length >= 2 ? parts.slice(1).join(' ') : undefined;
}

/**
 * Pipeline step 4: offline format check first (no identity call for garbage), then identity's
 * answer (introspection, or the token cache while it holds its lease: either way a revoked token
 * fails on the next call), then the scope/project rules. Identity failures propagate as 503 (fail
 * closed). Refusals are security events: logged with a token fingerprint, never the token, and
 * counted by reason.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  const failures = options.metrics.counter(
    'gateway_auth_failures_total',
    'Refused authentications by reason',
    ['reason'],
  );
  return async (req, res, next) => {
    const header = req.get('authorization');
    try {
      const token = parseBearer(header);
      const answer = await options.identity.introspect(token, { requestId: String(res.locals.requestId) });
      const principal = principalFromIntrospection(answer, options.now());
      // RFC 8707: identity checks the token against the resource it issues for, but this gateway
      // may be reached at another URL (a second deployment sharing identity, a mistyped public
      // URL): only a token for this very resource is accepted. Pasted tokens carry no audience.
      if (answer.active && answer.audience !== undefined && answer.audience !== options.resource) {
        throw new UnauthorizedError('wrong_resource');
      }
      res.locals.principal = principal;
      // Only identity can say a token is the web console's (it issues those to the console
      // service alone): nothing a client sends makes a call the console's.
      res.locals.viaConsole = answer.active && answer.console === true;
      next();
    } catch (err) {
      if (err instanceof UnauthorizedError) {
        failures.inc({ reason: err.reason });
        const credential = presentedCredential(header);
        options.logger.warn(
          {
            security_event: 'auth_failed',
            reason: err.reason,
            tokenFingerprint: credential ? tokenFingerprint(credential) : null,
            method: req.method,
            path: req.path,
            ip: req.ip,
            request_id: res.locals.requestId,
          },
          'authentication refused',
        );
      }
      next(err);
    }
  };
}

/** What a REST call is audited as: `console` for the web console's own token, else `rest`. */
export function restTransportOf(_req: Request, res: Response): 'rest' | 'console' {
  return res.locals.viaConsole === true ? 'console' : 'rest';
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  // Routes that reach the bindings are always behind `authenticate`; this guards wiring mistakes.
  if (!principal) throw new UnauthorizedError('not_authenticated');
  return principal;
}
