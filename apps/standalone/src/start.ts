import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot, type WiredService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { traceFields } from '@svc/self-trace';
import { banner } from './banner';
import { type StandaloneConfig, withSelfTraceProject } from './config';
import { seedFirstStart } from './first-start';
import { adminApi, bootstrapDemoOrg, DEMO_USER_EMAIL } from './seed';
import { bootstrapBeforeStart } from './self-trace';
import { startStack } from './stack';

/**
 * The whole stack in one process: started, the demo seeded on a data dir's first start, the banner
 * on stdout (the first thing printed), the ready file for tests. `release` frees the data dir's
 * instance lock once the stack has stopped.
 */
export async function startStandalone(
  config: StandaloneConfig,
  startedAt: number,
  release: () => void,
): Promise<WiredService> {
  const logger = createLogger({
    name: 'standalone',
    level: config.serviceEnv.SVC_LOG_LEVEL,
    destination: 'stderr',
    // Self-tracing: a line written while a service serves a request names its trace and span.
    ...(config.selfTrace.kind === 'off' ? {} : { mixin: traceFields }),
  });
  // The stack's own project must exist before the services that trace into it start.
  const early = config.selfTrace.kind === 'stack' ? await bootstrapBeforeStart(config, logger) : undefined;
  const selfTraceProject =
    config.selfTrace.kind === 'given' ? config.selfTrace.project : early?.stackProjectId;
  const stack = await startStack(early ? withSelfTraceProject(config, early.stackProjectId) : config, logger);

  const api = adminApi(stack.urls.identity, config.internalSecret);
  const org = early?.org ?? (await bootstrapDemoOrg(api));
  const { token, stackToken, seeded, demo } = await seedFirstStart(
    config,
    stack,
    api,
    org,
    early?.stackProjectId,
  );
  const consoleLogin = org.user_password
    ? { email: DEMO_USER_EMAIL, password: org.user_password }
    : undefined;
  const startupMs = Date.now() - startedAt;
  process.stdout.write(
    banner({
      urls: stack.urls,
      projectId: org.project_id,
      orgId: org.org_id,
      dataDir: config.dataDir,
      repoDir: findRepositoryRoot(fileURLToPath(new URL('.', import.meta.url))) ?? process.cwd(),
      token,
      seeded,
      startupMs,
      groups: stack.groups(),
      ...(selfTraceProject
        ? { selfTrace: { projectId: selfTraceProject, ...(stackToken ? { token: stackToken } : {}) } }
        : {}),
      ...(consoleLogin ? { consoleLogin } : {}),
    }),
  );
  stack.serving();
  if (config.readyFile) {
    writeFileSync(
      config.readyFile,
      JSON.stringify({
        urls: stack.urls,
        project_id: org.project_id,
        org_id: org.org_id,
        user_id: org.user_id,
        token: token ?? null,
        stack_project_id: selfTraceProject ?? null,
        stack_token: stackToken ?? null,
        // Tests sign in to the console with it; like the banner, only on the start that made the person.
        console_login: consoleLogin ?? null,
        startup_ms: startupMs,
        demo: demo ?? null,
        groups: stack.groups(),
      }),
    );
  }
  return {
    logger,
    // Every service listens inside the stack (startStack), which closes them itself.
    listeners: [],
    drain: async () => void process.stdout.write('\nStopping...\n'),
    async close() {
      await stack.close();
      release();
      process.stdout.write(`Stopped. Data kept in ${config.dataDir}.\n`);
    },
  };
}
