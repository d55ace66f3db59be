import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  DEMO_EXPERIMENTS,
  type DemoDebugFile,
  type DemoRecall,
  generateDemoDebugFiles,
  iterateDemoBatches,
} from '@svc/demo-data';
import { signIngestBody } from '@svc/observability-core';
import { encodeLogFile, encryptFileBytes, signedDeviceHeaders } from '@svc/recall';

export interface Bootstrap {
  org_id: string;
  project_id: string;
  user_id: string;
  created: boolean;
  /** Only when the demo user was created just now. */
  user_password?: string;
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

export const DEMO_USER_EMAIL = 'demo@example.com';

export async function bootstrapDemoOrg(api: AdminApi): Promise<Bootstrap> {
  return api.post<Bootstrap>('/internal/v1/admin/bootstrap', {
    org_name: 'Demo org',
    project_name: 'Demo app',
    user_email: DEMO_USER_EMAIL,
  });
}

/**
 * The demo org sees its traces, recalled device logs and the verifier: the three controlled
 * capabilities are switched on once, when the demo is seeded (an operator who switches one off
 * later keeps it off across restarts).
 */
export async function enableDemoCapabilities(api: AdminApi, orgId: string): Promise<void> {
  for (const capability of ['vis_trace', 'vis_recall', 'vis_ai_verifier']) {
    await api.put(`/internal/v1/admin/orgs/${orgId}/capabilities/${capability}`, { enabled: true });
  }
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

/**
 * A request signed with the ingest key, as an SDK sends it: ingest and debug files to the core,
 * key, uploads and polls to recall (signed whole, with a nonce). Without a body it is a GET, signed
 * over an empty one.
 */
async function signedRequest(
  baseUrl: string,
  path: string,
  key: IngestKey,
  body?: { content: string | Buffer; contentType: string },
): Promise<string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const url = new URL(path, baseUrl);
  const method = body ? 'POST' : 'GET';
  // Recall's device requests are signed whole (method, path and query, a nonce); the core's, by body.
  const signing = url.pathname.startsWith('/device/')
    ? signedDeviceHeaders(key, {
        method,
        target: url.pathname + url.search,
        body: body?.content ?? '',
        timestampSeconds: timestamp,
      })
    : {
        'x-svc-key': key.key_id,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature': signIngestBody(key.secret, timestamp, body?.content ?? ''),
      };
  const res = await fetch(url, {
    method,
    headers: { ...signing, ...(body ? { 'content-type': body.contentType } : {}) },
    // Node's fetch takes a Buffer; the DOM typing of fetch (which the console's Preact brings into
    // this program) does not say so.
    ...(body ? { body: body.content as BodyInit } : {}),
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
    await signedRequest(coreUrl, `/ingest/v1/debug-files?${query}`, key, {
      content: file.content,
      contentType: 'application/octet-stream',
    });
  }
  return files.length;
}

/**
 * Storied users per ingest request: with their crowd (6,000 crowd users at size 1 stand behind 40
 * storied ones), 8 of them make bodies of about 3 MB, well inside the core's 10 MB.
 */
const DEMO_USERS_PER_BATCH = 8;

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
  for (const batch of iterateDemoBatches({ ...demo, now }, DEMO_USERS_PER_BATCH)) {
    const { logs, crashes, sessions, events, feedback, metrics, spans } = batch;
    const body = JSON.stringify({ logs, crashes, sessions, events, feedback, metrics, spans, experiments });
    experiments = [];
    const text = await signedRequest(coreUrl, '/ingest/v1/batch', key, {
      content: body,
      contentType: 'application/json',
    });
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

/**
 * The recall demo through the real endpoints: each device fetches the project key and uploads its
 * encrypted file (one damaged mid-file), then a person of the org signs in to the console and asks
 * for one more device's logs, which stays pending. Returns the number of files uploaded.
 */
export async function seedDemoRecall(
  recallUrl: string,
  identityUrl: string,
  projectId: string,
  key: IngestKey,
  recall: DemoRecall,
  person: { email: string; password: string } | undefined,
): Promise<number> {
  const { key: dataKey, key_version } = JSON.parse(await signedRequest(recallUrl, '/device/v1/key', key)) as {
    key: string;
    key_version: number;
  };
  const keyBytes = Buffer.from(dataKey, 'base64');
  for (const file of recall.files) {
    const bytes = file.entries
      ? encodeLogFile(file.entries, keyBytes)
      : encryptFileBytes(gzipSync(Buffer.from(file.damagedText ?? '', 'utf8')), keyBytes);
    const query = new URLSearchParams({
      device_id: file.device_id,
      user_id: file.user_id,
      session_id: file.session_id,
      file_name: file.file_name,
      date: file.date,
      key_version: String(key_version),
    });
    await signedRequest(recallUrl, `/device/v1/files?${query}`, key, {
      content: bytes,
      contentType: 'application/octet-stream',
    });
  }
  // The demo person's password is known only when bootstrap just created them.
  if (!person) return recall.files.length;
  const login = await fetch(new URL('/console/v1/login', identityUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(person),
  });
  if (!login.ok) throw new Error(`demo console login answered ${login.status}`);
  const { session_token } = (await login.json()) as { session_token: string };
  const trigger = await fetch(new URL(`/console/v1/projects/${projectId}/recalls`, recallUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session_token}` },
    body: JSON.stringify({ device_id: recall.pending.device_id }),
  });
  if (!trigger.ok) throw new Error(`demo recall trigger answered ${trigger.status}: ${await trigger.text()}`);
  return recall.files.length;
}
