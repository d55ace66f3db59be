import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEMO_EXPERIMENTS,
  type DemoDebugFile,
  generateDemoDebugFiles,
  iterateDemoBatches,
} from '@svc/demo-data';
import { signIngestBody } from '@svc/observability-core';

export interface Bootstrap {
  org_id: string;
  project_id: string;
  user_id: string;
  created: boolean;
}

export interface AdminApi {
  post<T>(path: string, body: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
}

/** identity's admin API over real HTTP with the internal secret (the same calls `pnpm svc` makes). */
export function adminApi(identityUrl: string, internalSecret: string): AdminApi {
  const send = async <T>(method: 'POST' | 'PUT', path: string, body: unknown): Promise<T> => {
    const res = await fetch(new URL(path, identityUrl), {
      method,
      headers: { 'content-type': 'application/json', 'x-internal-secret': internalSecret },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`identity ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  return { post: (path, body) => send('POST', path, body), put: (path, body) => send('PUT', path, body) };
}

export async function bootstrapDemoOrg(api: AdminApi): Promise<Bootstrap> {
  return api.post<Bootstrap>('/internal/v1/admin/bootstrap', {
    org_name: 'Demo org',
    project_name: 'Demo app',
    user_email: 'demo@example.com',
  });
}

/**
 * The demo org sees its traces: vis_trace is switched on once, when the demo is seeded (an
 * operator who switches it off later keeps it off across restarts).
 */
export async function enableDemoCapabilities(api: AdminApi, orgId: string): Promise<void> {
  await api.put(`/internal/v1/admin/orgs/${orgId}/capabilities/vis_trace`, { enabled: true });
}

export async function createToken(
  api: AdminApi,
  projectId: string,
  userId: string | undefined,
  name: string,
): Promise<{ token: string; token_id: string; expires_at: string }> {
  return api.post('/internal/v1/admin/tokens', {
    project_id: projectId,
    name,
    ...(userId ? { user_id: userId } : {}),
  });
}

export interface IngestKey {
  key_id: string;
  secret: string;
}

/** POSTs a raw body to the core's ingest API, signed with the ingest key like every ingest call. */
async function signedPost(coreUrl: string, path: string, key: IngestKey, body: string, contentType: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  const res = await fetch(new URL(path, coreUrl), {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-svc-key': key.key_id,
      'x-svc-timestamp': String(timestamp),
      'x-svc-signature': signIngestBody(key.secret, timestamp, body),
    },
    body,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`demo ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return text;
}

/**
 * Uploads the demo's debug files (web source map, Breakpad files for iOS and Android) through
 * the real debug-file endpoint. Done before the crashes are ingested, so they symbolicate on ingest.
 */
export async function uploadDemoDebugFiles(
  coreUrl: string,
  key: IngestKey,
  files: DemoDebugFile[],
): Promise<number> {
  for (const file of files) {
    const query = new URLSearchParams({ kind: file.kind, platform: file.platform, name: file.name });
    await signedPost(
      coreUrl,
      `/ingest/v1/debug-files?${query}`,
      key,
      file.content,
      'application/octet-stream',
    );
  }
  return files.length;
}

/**
 * Sends the demo project through the real endpoints, signed with a fresh ingest key: first its
 * debug files, then its records (and the experiment definitions) in batches. Returns the number accepted per type.
 */
export async function ingestDemoData(
  api: AdminApi,
  coreUrl: string,
  projectId: string,
  demo: { size: number; seed: number; days: number },
  now: number,
): Promise<Record<string, number>> {
  const key = await api.post<IngestKey>('/internal/v1/admin/ingest-keys', {
    project_id: projectId,
  });
  const totals: Record<string, number> = {
    debug_files: await uploadDemoDebugFiles(coreUrl, key, generateDemoDebugFiles({ seed: demo.seed })),
  };
  // The experiment definitions ride with the first batch: once per project, before any exposure.
  let experiments = [...DEMO_EXPERIMENTS];
  for (const batch of iterateDemoBatches({ ...demo, now }, 50)) {
    const { logs, crashes, sessions, events, feedback, metrics, spans } = batch;
    const body = JSON.stringify({ logs, crashes, sessions, events, feedback, metrics, spans, experiments });
    experiments = [];
    const text = await signedPost(coreUrl, '/ingest/v1/batch', key, body, 'application/json');
    const { accepted } = JSON.parse(text) as { accepted: Record<string, number> };
    for (const [type, n] of Object.entries(accepted)) totals[type] = (totals[type] ?? 0) + n;
  }
  return totals;
}

const MARKER = 'demo-seeded';

export function isSeeded(dataDir: string): boolean {
  return existsSync(join(dataDir, MARKER));
}

export function markSeeded(dataDir: string, info: object): void {
  writeFileSync(join(dataDir, MARKER), `${JSON.stringify(info)}\n`);
}
