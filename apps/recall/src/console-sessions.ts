import { BackendUnavailableError, UnauthorizedError } from '@svc/errors';
import { startClientSpan, type Tracer } from '@svc/self-trace';
import { z } from 'zod';

// The console side of recall is for people, signed in to the web console: identity says who a
// session is and whether the project is their org's (POST /internal/v1/console-sessions/introspect).

export interface ConsoleCaller {
  userId: string;
  orgId: string;
  projectInOrg: boolean;
  capabilities: string[];
}

export interface ConsoleSessions {
  /** undefined: no live session. Throws BackendUnavailableError when identity cannot tell. */
  resolve(sessionToken: string, projectId: string): Promise<ConsoleCaller | undefined>;
}

/** A console request without a live session (401). */
export class ConsoleAuthError extends UnauthorizedError {
  constructor(reason: string) {
    super(reason);
    this.message = 'A valid web console session is required (Authorization: Bearer svc_ses_...).';
  }
}

const answer = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    user_id: z.string(),
    org_id: z.string(),
    project_in_org: z.boolean(),
    capabilities: z.array(z.string()),
  }),
]);

export function createIdentityConsoleSessions(options: {
  identityUrl: string;
  internalSecret: string;
  timeoutMs?: number;
  /** Self-tracing: the introspection is a client span, and identity is told it as its parent. */
  tracer?: Tracer;
}): ConsoleSessions {
  const base = options.identityUrl.replace(/\/+$/, '');
  const { tracer } = options;
  async function resolve(sessionToken: string, projectId: string, traceparent?: string) {
    let res: Response;
    try {
      res = await fetch(`${base}/internal/v1/console-sessions/introspect`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-internal-secret': options.internalSecret,
          ...(traceparent ? { traceparent } : {}),
        },
        body: JSON.stringify({ session_token: sessionToken, project_id: projectId }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 3_000),
      });
    } catch (err) {
      throw new BackendUnavailableError('identity', 5, { cause: err });
    }
    const parsed = answer.safeParse(res.ok ? await res.json().catch(() => undefined) : undefined);
    if (!parsed.success) {
      throw new BackendUnavailableError('identity', 5, {
        cause: new Error(`session introspection: HTTP ${res.status}`),
      });
    }
    if (!parsed.data.active) return undefined;
    return {
      userId: parsed.data.user_id,
      orgId: parsed.data.org_id,
      projectInOrg: parsed.data.project_in_org,
      capabilities: parsed.data.capabilities,
    };
  }
  if (!tracer) return { resolve: (token, projectId) => resolve(token, projectId) };
  return {
    async resolve(sessionToken, projectId) {
      const call = startClientSpan(tracer, 'POST /internal/v1/console-sessions/introspect', 'identity');
      try {
        const caller = await resolve(sessionToken, projectId, call.traceparent);
        call.span.setStatus('ok');
        return caller;
      } catch (err) {
        call.span.recordError(err);
        throw err;
      } finally {
        call.span.end();
      }
    },
  };
}
