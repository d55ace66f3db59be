import { generateDemoRecall } from '@svc/demo-data';
import type { StandaloneConfig } from './config';
import {
  type AdminApi,
  type Bootstrap,
  createToken,
  DEMO_USER_EMAIL,
  enableDemoCapabilities,
  type IngestKey,
  ingestDemoData,
  isSeeded,
  markSeeded,
  seedDemoRecall,
} from './seed';
import type { RunningStack } from './stack';

/** What the start that seeded the data dir shows once: the demo's token, counts, the stack's token. */
export interface FirstStart {
  token?: string;
  stackToken?: string;
  seeded?: Record<string, number>;
  demo?: StandaloneConfig['demo'] & { now: number };
}

/**
 * On a data dir's first start: the demo project's data, capabilities, recall files and a token
 * (and one for the stack's own traces when it traces itself). Nothing on a restart.
 */
export async function seedFirstStart(
  config: StandaloneConfig,
  stack: RunningStack,
  api: AdminApi,
  org: Bootstrap,
  stackProjectId: string | undefined,
): Promise<FirstStart> {
  if (isSeeded(config.dataDir)) return {};
  const demo = { ...config.demo, now: Date.now() };
  const seeded = await ingestDemoData(api, stack.urls.core, org.project_id, config.demo, demo.now);
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
  const token = (await createToken(api, org.project_id, org.user_id, 'standalone demo')).token;
  // A token for the stack's own traces, shown once with the demo's: the first thing to try.
  const stackToken = stackProjectId
    ? (await createToken(api, stackProjectId, org.user_id, 'standalone: the stack traced')).token
    : undefined;
  markSeeded(config.dataDir, { project_id: org.project_id, demo, seeded });
  return { token, seeded, demo, ...(stackToken ? { stackToken } : {}) };
}
