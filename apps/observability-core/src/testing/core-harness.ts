import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { type IngestKey, type IngestKeyResolver, signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Express } from 'express';
import request from 'supertest';
import { createCoreApp } from '../app';
import { migrateCore } from '../storage/migrate';
import { createCoreTestDatabase } from './core-database';

// Test fixture: a real core app on a fresh chDB database. The ingest keys are test data in a
// map (identity's resolver has its own test against an HTTP stand-in of identity).

export const INTERNAL_SECRET = 'test-internal-secret-0123456789';

/** A key as tests write it: without `allowedOrigins` it allows no browser origin. */
export type TestIngestKey = Omit<IngestKey, 'allowedOrigins'> & { allowedOrigins?: readonly string[] };

export interface TestKey extends TestIngestKey {
  keyId: string;
}

export interface CoreHarness {
  ch: ClickHouse;
  app: Express;
  keys: Map<string, TestIngestKey>;
  nowMs: number;
  /** POSTs a signed batch with `key`; `timestampSeconds` defaults to now. */
  ingest(key: TestKey, body: unknown, timestampSeconds?: number): request.Test;
  /** Ingests many records of one type in batches of 500, expecting each batch to be accepted. */
  ingestAll(key: TestKey, type: string, records: readonly unknown[]): Promise<void>;
  callTool(projectId: string, tool: string, input: unknown): request.Test;
  close(): Promise<void>;
}

export function staticIngestKeys(keys: Map<string, TestIngestKey>): IngestKeyResolver {
  return {
    resolve: async (keyId) => {
      const key = keys.get(keyId);
      return key ? { ...key, allowedOrigins: key.allowedOrigins ?? [] } : null;
    },
  };
}

/**
 * A core on `on` when given (e.g. a database of its own on a ClickHouse server), migrated here, else
 * on a fresh chDB database with the core's schema (core-database.ts); either is dropped by `close`.
 */
export async function createCoreHarness(
  name: string,
  nowMs: number,
  keys: TestKey[],
  on?: ClickHouse,
): Promise<CoreHarness> {
  const ch = on ?? (await createCoreTestDatabase(name));
  if (on) await migrateCore(on);
  const keyMap = new Map<string, TestIngestKey>(
    keys.map((k) => [
      k.keyId,
      { projectId: k.projectId, secret: k.secret, active: k.active, allowedOrigins: k.allowedOrigins ?? [] },
    ]),
  );
  const app = createCoreApp({
    ch,
    ingestKeys: staticIngestKeys(keyMap),
    internalSecret: INTERNAL_SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => nowMs,
  });
  const harness: CoreHarness = {
    ch,
    app,
    keys: keyMap,
    nowMs,
    ingest(key, body, timestampSeconds = Math.floor(nowMs / 1000)) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      return request(app)
        .post('/ingest/v1/batch')
        .set('Content-Type', 'application/json')
        .set('X-Svc-Key', key.keyId)
        .set('X-Svc-Timestamp', String(timestampSeconds))
        .set('X-Svc-Signature', signIngestBody(key.secret, timestampSeconds, raw))
        .send(raw);
    },
    async ingestAll(key, type, records) {
      for (let i = 0; i < records.length; i += 500) {
        await harness.ingest(key, { [type]: records.slice(i, i + 500) }).expect(200);
      }
    },
    callTool(projectId, tool, input) {
      return request(app)
        .post(`/internal/v1/projects/${encodeURIComponent(projectId)}/tools/${encodeURIComponent(tool)}`)
        .set('X-Internal-Secret', INTERNAL_SECRET)
        .send(input as object);
    },
    close: () => dropTestClickHouse(ch),
  };
  return harness;
}
