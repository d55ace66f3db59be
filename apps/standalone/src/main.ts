import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, findRepositoryRoot } from '@svc/config';
import { generateDemoRecall } from '@svc/demo-data';
import { createLogger } from '@svc/logger';
import { traceFields } from '@svc/self-trace';
import { banner } from './banner';
import { loadStandaloneConfig, withSelfTraceProject } from './config';
import { AlreadyRunningError, acquireInstanceLock } from './instance-lock';
import { PortInUseError } from './listen';
import {
  adminApi,
  bootstrapDemoOrg,
  createToken,
  DEMO_USER_EMAIL,
  enableDemoCapabilities,
  type IngestKey,
  ingestDemoData,
  isSeeded,
  markSeeded,
  seedDemoRecall,
} from './seed';
import { bootstrapBeforeStart } from './self-trace';
import { startStack } from './stack';

// `pnpm start`: the whole stack in one process. Expected failures (bad config, a second
// instance, a busy port) end with a one-paragraph message and exit 1, never a stack trace.
const started = Date.now();
let release = () => {};
try {
  const config = loadStandaloneConfig(process.env);
  release = acquireInstanceLock(config.dataDir).release;
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
  let token: string | undefined;
  let stackToken: string | undefined;
  let seeded: Record<string, number> | undefined;
  let demo: (typeof config.demo & { now: number }) | undefined;
  if (!isSeeded(config.dataDir)) {
    demo = { ...config.demo, now: Date.now() };
    seeded = await ingestDemoData(api, stack.urls.core, org.project_id, config.demo, demo.now);
    await enableDemoCapabilities(api, org.org_id);
    const deviceKey = await api.post<IngestKey>('/internal/v1/admin/ingest-keys', {
      project_id: org.project_id,
    });
    seeded.recall_files = await seedDemoRecall(
      stack.urls.recall,
      stack.urls.identity,
      org.project_id,
      deviceKey,
      generateDemoRecall({ ...config.demo, now: demo.now }),
      org.user_password ? { email: DEMO_USER_EMAIL, password: org.user_password } : undefined,
    );
    token = (await createToken(api, org.project_id, org.user_id, 'standalone demo')).token;
    // A token for the stack's own traces, shown once with the demo's: the first thing to try.
    if (early)
      stackToken = (await createToken(api, early.stackProjectId, org.user_id, 'standalone: the stack traced'))
        .token;
    markSeeded(config.dataDir, { project_id: org.project_id, demo, seeded });
  }

  const consoleLogin = org.user_password
    ? { email: DEMO_USER_EMAIL, password: org.user_password }
    : undefined;
  const startupMs = Date.now() - started;
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

  // Ctrl-C reaches this process more than once (from the terminal and relayed by pnpm): every
  // later signal is ignored while the first one stops the stack, so the stop is always clean.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    process.stdout.write('\nStopping...\n');
    await stack.close();
    release();
    process.stdout.write(`Stopped. Data kept in ${config.dataDir}.\n`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
} catch (err) {
  release();
  if (err instanceof ConfigError || err instanceof AlreadyRunningError || err instanceof PortInUseError) {
    process.stderr.write(`pnpm start: ${err.message}\n`);
  } else {
    process.stderr.write(
      `pnpm start failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
}
