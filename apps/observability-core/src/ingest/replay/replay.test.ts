import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { generateDemoProject } from '@svc/demo-data';
import { signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Express } from 'express';
import request from 'supertest';
import { createCoreApp } from '../../app';
import { migrateCore } from '../../storage/migrate';
import {
  type CoreHarness,
  createCoreHarness,
  INTERNAL_SECRET,
  staticIngestKeys,
  type TestKey,
} from '../../testing/core-harness';
import { RECORD_TYPES } from '../schemas';
import { createReplayGuard, type ReplayDecision } from './replay-guard';

// Replayed and retried ingest batches (docs/ingest.md, "Retries and replays"): whatever a client
// or an attacker re-sends, no row is stored twice, and the answer says why.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const TS = Math.floor(NOW / 1000);
const key: TestKey = { keyId: 'key_r', projectId: 'proj_r', secret: 'secret-r-0123456789', active: true };
const demo = generateDemoProject({ seed: 11, size: 0.05, now: NOW, days: 2 });

/** One batch with every record type but crashes (they dedupe by event_id already). */
function batch(tag: string) {
  return {
    logs: demo.logs.slice(0, 20).map((l) => ({ ...l, message: `${tag} ${l.message}` })),
    sessions: demo.sessions.slice(0, 3).map((s) => ({ ...s, session_id: `${tag}-${s.session_id}` })),
    spans: [
      {
        trace_id: 'c'.repeat(32),
        span_id: 'd'.repeat(16),
        kind: 'server',
        status: 'ok',
        operation: `GET /${tag}`,
        start_time: NOW - 1000,
        duration_ms: 3,
      },
    ],
    metrics: [{ timestamp: NOW - 5000, name: `m_${tag}`, value: 1.5 }],
    events: [{ timestamp: NOW - 2000, event_name: `e_${tag}`, user_id: 'u1' }],
    feedback: [{ timestamp: NOW - 1, user_id: 'u1', message: `feedback ${tag}`, rating: 4 }],
    experiments: [{ experiment_key: `exp_${tag}`, goal_event: 'purchase', variants: ['a', 'b'] }],
  };
}

function send(app: Express, body: unknown, options: { ts?: number; idempotencyKey?: string } = {}) {
  const raw = JSON.stringify(body);
  const ts = options.ts ?? TS;
  const req = request(app)
    .post('/ingest/v1/batch')
    .set('Content-Type', 'application/json')
    .set('X-Svc-Key', key.keyId)
    .set('X-Svc-Timestamp', String(ts))
    .set('X-Svc-Signature', signIngestBody(key.secret, ts, raw));
  if (options.idempotencyKey !== undefined) req.set('Idempotency-Key', options.idempotencyKey);
  return req.send(raw);
}

/** Rows of the batch tagged `tag`, per table (every table, so a duplicate anywhere shows). */
async function stored(ch: ClickHouse, tag: string): Promise<Record<string, number>> {
  const where: Record<string, string> = {
    logs: 'startsWith(message, {t:String})',
    sessions: 'startsWith(session_id, {t:String})',
    spans: "operation = concat('GET /', {t:String})",
    metrics: "name = concat('m_', {t:String})",
    events: "event_name = concat('e_', {t:String})",
    feedback: "message = concat('feedback ', {t:String})",
    experiments: "experiment_key = concat('exp_', {t:String})",
  };
  const out: Record<string, number> = {};
  for (const [table, condition] of Object.entries(where)) {
    // No FINAL: a duplicate that a later merge would fold away is a duplicate a query sees now.
    const [row] = await ch.query<{ n: string }>(
      `SELECT count() AS n FROM ${table} WHERE project_id = 'proj_r' AND ${condition}`,
      { t: tag },
    );
    out[table] = Number(row?.n);
  }
  return out;
}

const ONCE = { logs: 20, sessions: 3, spans: 1, metrics: 1, events: 1, feedback: 1, experiments: 1 };

function appOn(ch: ClickHouse): Express {
  return createCoreApp({
    ch,
    ingestKeys: staticIngestKeys(new Map([[key.keyId, key]])),
    internalSecret: INTERNAL_SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => NOW,
  });
}

describe('ingest replays and retries', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_ingest_replay', NOW, [key]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('refuses a signed request sent again with 409 and stores its rows once', async () => {
    const body = batch('replay');
    await send(h.app, body).expect(200);
    for (let i = 0; i < 2; i++) {
      const res = await send(h.app, body).expect(409);
      expect(res.body).toEqual({
        error: 'conflict',
        message: expect.stringContaining('already accepted: a replay is refused'),
      });
    }
    expect(await stored(h.ch, 'replay')).toEqual(ONCE);
  });

  it('refuses a replay under a fresh Idempotency-Key (the key is not signed)', async () => {
    const body = batch('rekeyed');
    await send(h.app, body).expect(200);
    await send(h.app, body, { idempotencyKey: 'fresh-key-1' }).expect(409);
    expect(await stored(h.ch, 'rekeyed')).toEqual(ONCE);
  });

  it('answers a retry under the same Idempotency-Key with the first answer, once stored', async () => {
    const body = batch('idem');
    const first = await send(h.app, body, { idempotencyKey: 'batch-0001', ts: TS - 10 }).expect(200);
    expect(first.body.replayed).toBeUndefined();
    // A retrying client signs again: a new timestamp, so a new signature; same key, same body.
    for (const ts of [TS - 5, TS]) {
      const again = await send(h.app, body, { idempotencyKey: 'batch-0001', ts }).expect(200);
      expect(again.body).toEqual({ accepted: first.body.accepted, replayed: true });
    }
    // The very same bytes again (same signature) are the same retry, not a replay to refuse.
    await send(h.app, body, { idempotencyKey: 'batch-0001', ts: TS }).expect(200);
    expect(await stored(h.ch, 'idem')).toEqual(ONCE);

    const other = await send(h.app, batch('other'), { idempotencyKey: 'batch-0001' }).expect(409);
    expect(other.body.message).toContain('already used for another batch');
    expect(await stored(h.ch, 'other')).toEqual(Object.fromEntries(Object.keys(ONCE).map((t) => [t, 0])));
  });

  it('accepts a quoted Idempotency-Key and refuses a malformed one with 400', async () => {
    const body = batch('quoted');
    await send(h.app, body, { idempotencyKey: '"q-1"', ts: TS - 1 }).expect(200);
    const again = await send(h.app, body, { idempotencyKey: 'q-1' }).expect(200);
    expect(again.body.replayed).toBe(true);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'é']) {
      const res = await send(h.app, batch('bad-key'), { idempotencyKey: bad });
      expect([res.status, res.body.error]).toEqual([400, 'invalid_input']);
    }
  });

  it('remembers across a restart: a new core on the same store refuses and replays the same', async () => {
    const body = batch('rs');
    await send(h.app, body).expect(200);
    await send(h.app, batch('ri'), { idempotencyKey: 'restart-1', ts: TS - 3 }).expect(200);

    const restarted = appOn(h.ch);
    await send(restarted, body).expect(409);
    const retried = await send(restarted, batch('ri'), { idempotencyKey: 'restart-1' }).expect(200);
    expect(retried.body.replayed).toBe(true);
    expect(await stored(h.ch, 'rs')).toEqual(ONCE);
    expect(await stored(h.ch, 'ri')).toEqual(ONCE);
  });

  it('completes a batch that failed half-way without duplicating what went in', async () => {
    for (const idempotencyKey of [undefined, 'half-1']) {
      const tag = `half-${idempotencyKey ?? 'signed'}`;
      // Storage fails on the events insert once: logs, crashes, spans and metrics are already in.
      let failing = true;
      const flaky: ClickHouse = {
        ...h.ch,
        insert: async (table, rows, options) => {
          if (table === 'events' && failing) {
            failing = false;
            throw new Error('connection reset');
          }
          return h.ch.insert(table, rows, options);
        },
      };
      const app = appOn(flaky);
      const body = batch(tag);
      const opts = idempotencyKey ? { idempotencyKey } : {};
      const res = await send(app, body, opts).expect(503);
      expect(res.body.message).not.toContain('connection reset');
      expect((await stored(h.ch, tag)).logs).toBe(20);
      // The same bytes again: the first attempt was not accepted, so this is no replay.
      await send(app, body, opts).expect(200);
      expect(await stored(h.ch, tag)).toEqual(ONCE);
      await send(app, body, opts).expect(idempotencyKey ? 200 : 409);
      expect(await stored(h.ch, tag)).toEqual(ONCE);
    }
  });

  it('completes, after a restart, batches whose logs went in merged with each other and whose spans did not', async () => {
    // The first request's logs insert waits at a gate; two keyed batches queue behind it, so their
    // logs go in together, as one insert under a token of the group; then their spans fail.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let gated = true;
    let lookups = 0;
    let queries = 0;
    const inserted: number[] = [];
    const flaky: ClickHouse = {
      ...h.ch,
      query: async (sql, params, options) => {
        queries++;
        try {
          return await h.ch.query(sql, params, options);
        } finally {
          queries--;
          if (sql.includes('ingest_requests')) lookups++;
        }
      },
      insert: async (table, rows, options) => {
        if (table === 'logs' && gated) {
          gated = false;
          await gate;
        }
        if (table === 'spans') throw new Error('connection reset');
        await h.ch.insert(table, rows, options);
        if (table === 'logs') inserted.push(rows.length);
      },
    };
    const app = appOn(flaky);
    const first = send(app, { logs: batch('merged-first').logs }, { ts: TS - 40 }).then((r) => r.status);
    while (gated) await new Promise((r) => setTimeout(r, 5));
    const merged = ['merged-a', 'merged-b'].map((tag) =>
      send(app, batch(tag), { idempotencyKey: tag, ts: TS - 30 }).then((r) => r.status),
    );
    // Both looked their key up, and whatever else they ask the engine before their logs insert:
    // nothing else on the way waits on I/O.
    for (let settled = 0; settled < 3; ) {
      await new Promise((r) => setTimeout(r, 5));
      settled = lookups >= 2 && queries === 0 ? settled + 1 : 0;
    }
    open();
    expect([await first, ...(await Promise.all(merged))]).toEqual([200, 503, 503]);
    expect(inserted).toEqual([20, 40]);

    // A new process on the same store: the group's token is all the engine knows of those logs.
    const restarted = appOn(h.ch);
    for (const tag of ['merged-a', 'merged-b']) {
      await send(restarted, batch(tag), { idempotencyKey: tag }).expect(200);
      expect([tag, await stored(h.ch, tag)]).toEqual([tag, ONCE]);
    }
  });

  it('refuses a repeat while the first is still being written', async () => {
    let unblock!: () => void;
    const gate = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const slow: ClickHouse = {
      ...h.ch,
      insert: async (table, rows, options) => {
        if (table === 'logs') await gate;
        return h.ch.insert(table, rows, options);
      },
    };
    const app = appOn(slow);
    const body = batch('concurrent');
    const first = send(app, body, { idempotencyKey: 'conc-1' }).then((r) => r);
    await new Promise((r) => setTimeout(r, 50));
    const second = await send(app, body, { idempotencyKey: 'conc-1', ts: TS - 2 }).expect(409);
    expect(second.body.message).toContain('still being processed');
    unblock();
    expect((await first).status).toBe(200);
    expect(await stored(h.ch, 'concurrent')).toEqual(ONCE);
  });

  it('every table a batch writes to remembers deduplication tokens', async () => {
    const rows = await h.ch.query<{ name: string; q: string }>(
      'SELECT name, create_table_query AS q FROM system.tables WHERE database = currentDatabase()',
    );
    for (const type of RECORD_TYPES) {
      const table = rows.find((r) => r.name === type);
      expect([type, table?.q]).toEqual([
        type,
        expect.stringContaining('non_replicated_deduplication_window = 10000'),
      ]);
    }
  });
});

describe('the replay guard of an embedded store (the only process writing it)', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_replay_sole', NOW, []);
  });
  afterAll(async () => {
    await h.close();
  });

  /** `h.ch` that counts the statements naming ingest_requests. */
  function counting(): { ch: ClickHouse; lookups: () => number } {
    let lookups = 0;
    return {
      ch: {
        ...h.ch,
        query: async (sql, params, options) => {
          if (sql.includes('ingest_requests')) lookups++;
          return h.ch.query(sql, params, options);
        },
      },
      lookups: () => lookups,
    };
  }
  const identity = (keyId: string, timestamp: number, idempotencyKey?: string) => ({
    keyId,
    projectId: 'p',
    timestamp: String(timestamp),
    signature: `v1=${timestamp}${idempotencyKey ?? ''}`,
    idempotencyKey,
    body: Buffer.from(`body ${timestamp}`),
  });
  const body = (keyId: string, text: string) => ({ keyId, projectId: 'p', body: Buffer.from(text) });

  it('asks the table only for what its memory cannot know', async () => {
    const store = counting();
    // Started an hour ago; nothing accepted in this store's last hour, so the load finds nothing.
    const guard = createReplayGuard({ ch: store.ch, now: () => NOW + 3_600_000, soleWriterSince: NOW });
    await guard.loaded;
    expect(store.lookups()).toBe(1);
    const later = TS + 3600;
    const fresh = await guard.begin(identity('k', later));
    expect([fresh.kind, store.lookups()]).toEqual(['fresh', 1]);
    if (fresh.kind === 'fresh') await fresh.accepted({ logs: 1 });
    await expect(guard.begin(identity('k', later))).rejects.toThrow(/already accepted/);
    // Signed within the clock skew of the start: a previous process may have taken it, and what
    // it took then was loaded.
    const early = await guard.begin(identity('k', TS + 100));
    expect([early.kind, store.lookups()]).toEqual(['fresh', 1]);
    if (early.kind === 'fresh') early.release();
    expect((await guard.beginBody(body('k', 'a body'))).kind).toBe('fresh');
    expect(store.lookups()).toBe(1);
    // An Idempotency-Key may name a request from before the start, whenever it is signed.
    const keyed = await guard.begin(identity('k', later + 1, 'key-1'));
    expect([keyed.kind, store.lookups()]).toEqual(['fresh', 2]);
    if (keyed.kind === 'fresh') keyed.release();
  });

  it('loads what the process before accepted lately, and answers its repeats from memory', async () => {
    const before = createReplayGuard({ ch: h.ch, now: () => NOW });
    const signed = await before.begin(identity('k-load', TS));
    const exported = await before.beginBody(body('k-load', 'spans of one export'));
    if (signed.kind !== 'fresh' || exported.kind !== 'fresh') throw new Error('expected fresh requests');
    await signed.accepted({ logs: 2 });
    await exported.accepted({ spans: 7 });

    // A minute later a new process starts on the same store.
    const store = counting();
    const after = createReplayGuard({ ch: store.ch, now: () => NOW + 60_000, soleWriterSince: NOW + 60_000 });
    await after.loaded;
    expect(store.lookups()).toBe(1);
    await expect(after.begin(identity('k-load', TS))).rejects.toThrow(/already accepted/);
    expect(await after.beginBody(body('k-load', 'spans of one export'))).toEqual({
      kind: 'replayed',
      accepted: { spans: 7 },
    });
    expect(store.lookups()).toBe(1);
  });

  it('asks the table again for what a full load may have left out', async () => {
    let clock = NOW + 120_000;
    const before = createReplayGuard({ ch: h.ch, now: () => clock });
    for (const text of ['first', 'second', 'third']) {
      clock += 1000;
      const decision = await before.beginBody(body('k-full', text));
      if (decision.kind === 'fresh') await decision.accepted({ spans: 1 });
    }
    // Memory for two: the load takes the newest two, and the oldest, which it could not hold, is
    // asked of the table.
    const store = counting();
    const after = createReplayGuard({
      ch: store.ch,
      now: () => NOW + 240_000,
      soleWriterSince: NOW + 180_000,
      memoryEntries: 2,
    });
    await after.loaded;
    expect(store.lookups()).toBe(1);
    const newest = await after.beginBody(body('k-full', 'third'));
    expect([newest.kind, store.lookups()]).toEqual(['replayed', 1]);
    const oldest = await after.beginBody(body('k-full', 'first'));
    expect([oldest.kind, store.lookups()]).toEqual(['replayed', 2]);
  });

  it('asks the table when the load failed, and says so', async () => {
    const failed: unknown[] = [];
    const broken: ClickHouse = {
      ...h.ch,
      query: async () => {
        throw new Error('engine down');
      },
    };
    const guard = createReplayGuard({
      ch: broken,
      now: () => NOW + 3_600_000,
      soleWriterSince: NOW + 3_600_000,
      onLoadFailed: (err) => failed.push(err),
    });
    await guard.loaded;
    expect(failed).toHaveLength(1);
    // A body a previous process may have taken must be looked up, and the lookup fails too.
    await expect(guard.beginBody(body('k-broken', 'x'))).rejects.toThrow('engine down');
  });

  /** Whether the request is told an earlier try may have stored rows; then settled as `outcome`. */
  async function mayBeStored(
    decision: Promise<ReplayDecision>,
    outcome: 'accepted' | 'failed' = 'accepted',
  ): Promise<boolean> {
    const fresh = await decision;
    if (fresh.kind !== 'fresh') throw new Error('expected a fresh request');
    if (outcome === 'accepted') await fresh.accepted({ logs: 1 });
    else fresh.release();
    return fresh.tokenFor.mayBeStored === true;
  }

  it('on a new store, where no process stored rows before, looks for none but of its own failed tries', async () => {
    const fresh = await createTestClickHouse('core_replay_new_store');
    try {
      await migrateCore(fresh);
      const guard = createReplayGuard({ ch: fresh, now: () => NOW, soleWriterSince: NOW });
      await guard.loaded;
      expect(await mayBeStored(guard.begin(identity('k-new', TS, 'key-new')), 'failed')).toBe(false);
      expect(await mayBeStored(guard.beginBody(body('k-new', 'a body')))).toBe(false);
      expect(await mayBeStored(guard.begin(identity('k-new', TS + 1, 'key-new')))).toBe(true);
    } finally {
      await dropTestClickHouse(fresh);
    }
  });

  it('tells the writer to look for rows of an earlier try only when one may have been made', async () => {
    // A process before this one stored rows just before it started.
    await h.ch.insert('logs', [
      { project_id: 'p', timestamp: NOW, level: 'INFO', message: 'x', source: 'backend' },
    ]);
    let clock = NOW + 3_600_000;
    const guard = createReplayGuard({ ch: h.ch, now: () => clock, soleWriterSince: NOW });
    await guard.loaded;
    const later = TS + 3600;
    // Signed after this process started (plus the clock skew): no other process can have tried it.
    expect(await mayBeStored(guard.begin(identity('k-try', later)), 'failed')).toBe(false);
    // It failed: its retry (the same bytes) may find some of its rows, until it is accepted.
    expect(await mayBeStored(guard.begin(identity('k-try', later)), 'failed')).toBe(true);
    expect(await mayBeStored(guard.begin(identity('k-try', later)))).toBe(true);
    expect(await mayBeStored(guard.begin(identity('k-try', later + 1)))).toBe(false);
    // Signed within the clock skew of the start: the process before may have tried it.
    expect(await mayBeStored(guard.begin(identity('k-try', TS + 100)))).toBe(true);
    // A retry under an Idempotency-Key is signed anew: its first try may be of any time.
    expect(await mayBeStored(guard.begin(identity('k-try', later + 2, 'key-try')))).toBe(true);
    // An exporter's body: past its retry window of the start, only this process can have tried it.
    expect(await mayBeStored(guard.beginBody(body('k-try', 'late body')))).toBe(false);
    clock = NOW + 60_000;
    expect(await mayBeStored(guard.beginBody(body('k-try', 'early body')))).toBe(true);
    // Not the only writer (a ClickHouse server): another replica may have tried anything.
    const replica = createReplayGuard({ ch: h.ch, now: () => NOW + 3_600_000 });
    expect(await mayBeStored(replica.begin(identity('k-try', later + 3)))).toBe(true);

    // Started long after the last rows were stored: only a keyed request may be a retry of them.
    const start = Date.now() + 3_600_000;
    const rested = createReplayGuard({ ch: h.ch, now: () => start, soleWriterSince: start });
    await rested.loaded;
    const signedNow = Math.floor(start / 1000);
    expect(await mayBeStored(rested.begin(identity('k-rest', signedNow)))).toBe(false);
    expect(await mayBeStored(rested.beginBody(body('k-rest', 'body after a rest')))).toBe(false);
    expect(await mayBeStored(rested.begin(identity('k-rest', signedNow + 1, 'key-rest')))).toBe(true);
  });

  it('looks for rows of earlier tries it no longer remembers, back to the newest it forgot', async () => {
    let clock = NOW + 3_600_000;
    const guard = createReplayGuard({ ch: h.ch, now: () => clock, soleWriterSince: NOW, memoryEntries: 1 });
    await guard.loaded;
    const later = TS + 3600;
    for (const ts of [later + 10, later + 11]) {
      const failed = await guard.begin(identity('k-forgot', ts));
      if (failed.kind === 'fresh') failed.release();
    }
    // Memory holds one unsettled try: the first was dropped, so a request that might be its
    // retry (signed no later than the skew after it was tried) is looked up.
    const maybe = await guard.begin(identity('k-forgot', later + 12));
    expect(maybe.kind === 'fresh' && maybe.tokenFor.mayBeStored).toBe(true);
    if (maybe.kind === 'fresh') await maybe.accepted({ logs: 1 });
    clock += 600_000;
    const past = await guard.begin(identity('k-forgot', Math.floor(clock / 1000)));
    expect(past.kind === 'fresh' && past.tokenFor.mayBeStored).toBe(false);
  });

  it('answers a body accepted before as a replay, and one still being written with a retryable 503', async () => {
    const guard = createReplayGuard({ ch: h.ch, now: () => NOW });
    const request = { keyId: 'otlp-k', projectId: 'p', body: Buffer.from('spans of one export') };
    const first = await guard.beginBody(request);
    expect(first.kind).toBe('fresh');
    await expect(guard.beginBody(request)).rejects.toMatchObject({ code: 'backend_unavailable' });
    if (first.kind === 'fresh') await first.accepted({ spans: 2 });
    expect(await guard.beginBody(request)).toEqual({ kind: 'replayed', accepted: { spans: 2 } });
    // Another process on the same store (a restarted core) knows it from the table.
    expect(await createReplayGuard({ ch: h.ch, now: () => NOW }).beginBody(request)).toMatchObject({
      kind: 'replayed',
    });
    expect((await guard.beginBody({ ...request, body: Buffer.from('other spans') })).kind).toBe('fresh');
  });
});
