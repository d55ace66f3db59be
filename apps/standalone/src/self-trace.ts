import { loadIdentityConfig, wireIdentity } from '@svc/identity';
import type { PinoLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { StandaloneConfig } from './config';
import { listen } from './listen';
import { type AdminApi, adminApi, type Bootstrap, bootstrapDemoOrg, DEMO_USER_EMAIL } from './seed';

// The stack traced by itself (README, "The stack traces itself"): the standalone's services send
// their own spans into a second project of the demo org, named "stack".

export const STACK_PROJECT_NAME = 'stack';

/**
 * The "stack" project, made on first start and found by name after: bootstrap is find-or-create
 * (the demo user's org, the project by name), so restarts keep one project and its traces.
 */
export async function bootstrapStackProject(api: AdminApi): Promise<string> {
  const answer = await api.post<Bootstrap>('/internal/v1/admin/bootstrap', {
    org_name: 'Demo org',
    project_name: STACK_PROJECT_NAME,
    user_email: DEMO_USER_EMAIL,
  });
  return answer.project_id;
}

/**
 * The demo org and the "stack" project, made before the services start: each service reads its
 * self-trace project from its configuration when it is wired, and projects are made by identity.
 * So identity runs alone for a moment on its own port (about 0.3 s), answers the two bootstrap
 * calls `pnpm svc` would make, and stops; the stack then starts with the project set.
 */
export async function bootstrapBeforeStart(
  config: StandaloneConfig,
  logger: PinoLogger,
): Promise<{ org: Bootstrap; stackProjectId: string }> {
  const identityConfig = loadIdentityConfig(config.serviceEnv);
  const identity = await wireIdentity(identityConfig, {
    logger: logger.child({ service: 'identity' }),
    metrics: createNoopMetrics(),
  });
  try {
    const server = await listen('identity', identity.app, identityConfig.host, identityConfig.port);
    try {
      const api = adminApi(`http://localhost:${server.port}`, config.internalSecret);
      const org = await bootstrapDemoOrg(api);
      return { org, stackProjectId: await bootstrapStackProject(api) };
    } finally {
      await server.close();
    }
  } finally {
    await identity.close();
  }
}
