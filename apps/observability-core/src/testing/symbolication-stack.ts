import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Express } from 'express';
import request from 'supertest';
import { createCoreApp } from '../app';
import { createDebugFileStore } from '../symbolication/debug-file-store';
import { createSymbolicator, type Symbolicator } from '../symbolication/symbolicator';
import { createCoreTestDatabase } from './core-database';
import { INTERNAL_SECRET, staticIngestKeys, type TestIngestKey } from './core-harness';

// A core app on chDB with a real debug-file store, for symbolication tests over HTTP: signed
// uploads, signed ingest batches, tool calls through the internal API.

export const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;

export interface SymbolicationStack {
  ch: ClickHouse;
  app: Express;
  symbolicator: Symbolicator;
  upload(query: Record<string, string>, body: string | Buffer): request.Test;
  ingest(body: unknown): request.Test;
  callTool(tool: string, input: unknown): request.Test;
  close(): Promise<void>;
}

export async function startSymbolicationStack(name: string): Promise<SymbolicationStack> {
  const key = { keyId: `key_${name}`, projectId: `proj_${name}`, secret: `secret-${name}-0123456789` };
  const ch = await createCoreTestDatabase(name);
  const dir = mkdtempSync(join(tmpdir(), `${name}-test-`));
  const files = createDebugFileStore(dir);
  const symbolicator = createSymbolicator({ ch, files, logger: silentLogger });
  let clock = NOW;
  const keys = new Map<string, TestIngestKey>([
    [key.keyId, { projectId: key.projectId, secret: key.secret, active: true }],
  ]);
  const app = createCoreApp({
    ch,
    ingestKeys: staticIngestKeys(keys),
    internalSecret: INTERNAL_SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => clock,
    debugFiles: files,
    symbolicator,
  });
  const signed = (path: string, contentType: string, bytes: Buffer | string) => {
    clock += 1000;
    const ts = Math.floor(clock / 1000);
    return request(app)
      .post(path)
      .set('Content-Type', contentType)
      .set('X-Svc-Key', key.keyId)
      .set('X-Svc-Timestamp', String(ts))
      .set('X-Svc-Signature', signIngestBody(key.secret, ts, bytes));
  };
  return {
    ch,
    app,
    symbolicator,
    upload(query, body) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
      return signed('/ingest/v1/debug-files', 'application/octet-stream', bytes).query(query).send(bytes);
    },
    ingest(body) {
      const raw = JSON.stringify(body);
      return signed('/ingest/v1/batch', 'application/json', raw).send(raw);
    },
    callTool: (tool, input) =>
      request(app)
        .post(`/internal/v1/projects/${key.projectId}/tools/${tool}`)
        .set('X-Internal-Secret', INTERNAL_SECRET)
        .send(input as object),
    async close() {
      symbolicator.close();
      await dropTestClickHouse(ch);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A crash record as an SDK sends it, one minute before NOW. */
export function crashRecord(eventId: string, platform: string, appVersion: string, frames: unknown[]) {
  return {
    event_id: eventId,
    timestamp: new Date(NOW - 60_000).toISOString(),
    error_type: 'Error',
    message: 'out of stock',
    frames,
    breadcrumbs: [],
    platform,
    app_version: appVersion,
    device_os: `${platform} 14`,
  };
}
