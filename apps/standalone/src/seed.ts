import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { iterateDemoBatches } from '@svc/demo-data';
import { signIngestBody } from '@svc/observability-core';

export interface Bootstrap {
  org_id: string;
  project_id: string;
  user_id: string;
  created: boolean;
}

export interface AdminApi {
  post<T>(path: string, body: unknown): Promise<T>;
}

/** identity's admin API over real HTTP with the internal secret (the same calls `pnpm svc` makes). */
export function adminApi(identityUrl: string, internalSecret: string): AdminApi {
  return {
    async post<T>(path: string, body: unknown): Promise<T> {
      const res = await fetch(new URL(path, identityUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-secret': internalSecret },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`identity ${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    },
  };
}

export async function bootstrapDemoOrg(api: AdminApi): Promise<Bootstrap> {
  return api.post<Bootstrap>('/internal/v1/admin/bootstrap', {
    org_name: 'Demo org',
    project_name: 'Demo app',
    user_email: 'demo@example.com',
  });
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

/**
 * Sends the demo project through the real ingest endpoint, signed with a fresh ingest key, in
 * batches. Returns the number of records accepted per type.
 */
export async function ingestDemoData(
  api: AdminApi,
  coreUrl: string,
  projectId: string,
  demo: { size: number; seed: number; days: number },
  now: number,
): Promise<Record<string, number>> {
  const key = await api.post<{ key_id: string; secret: string }>('/internal/v1/admin/ingest-keys', {
    project_id: projectId,
  });
  const totals: Record<string, number> = {};
  for (const batch of iterateDemoBatches({ ...demo, now }, 50)) {
    const body = JSON.stringify({ logs: batch.logs, crashes: batch.crashes, sessions: batch.sessions });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(new URL('/ingest/v1/batch', coreUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-svc-key': key.key_id,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature': signIngestBody(key.secret, timestamp, body),
      },
      body,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`demo ingest answered ${res.status}: ${text.slice(0, 500)}`);
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
