import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signIngestBody } from '@svc/ingest-auth';
import type { TestKey } from '../../testing/core-harness';
import type { CrashFault } from '../../testing/core-process';

// A core killed with SIGKILL while it ingests, started again on the same data dir, and sent again
// every batch it had not acknowledged, with the same Idempotency-Key and body as docs/ingest.md
// says: every batch is stored exactly once, whether its first try went in or not, alone or merged
// with other requests' rows into one insert, whole or only some of its tables.

const CORE_PROCESS = fileURLToPath(new URL('../../testing/core-process.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * core-process.ts bundled once here as an app is (`pnpm build`), into the package's
 * node_modules/.cache where its npm dependencies resolve: ten process starts under tsx cost ~4 CPU-s
 * each before the core's own start, the bundle's ~1.3.
 */
let bundle: string;

beforeAll(() => {
  const cache = join(PACKAGE_DIR, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  bundle = join(mkdtempSync(join(cache, 'core-process-test-')), 'core-process.js');
  execFileSync(process.execPath, ['../../scripts/build-app.mjs', CORE_PROCESS, bundle], { cwd: PACKAGE_DIR });
});

afterAll(() => {
  if (bundle) rmSync(dirname(bundle), { recursive: true, force: true });
});
const KEY: TestKey = {
  keyId: 'key_crash',
  projectId: 'proj_crash',
  secret: 'secret-crash-0123456789',
  active: true,
};
const LOGS_PER_BATCH = 100;
const SPANS_PER_BATCH = 10;

interface Core {
  url: string;
  child: ChildProcess;
  /** Settles with the signal that ended the process (or its exit code). */
  ended: Promise<string>;
}

function node(args: string[]): ChildProcess {
  return spawn(process.execPath, [bundle, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Everything the process printed, once it has ended. */
function outputOf(child: ChildProcess): Promise<{ out: string; ended: string }> {
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ out, ended: signal ?? String(code) })),
  );
}

async function startCore(dataDir: string, fault?: CrashFault): Promise<Core> {
  const child = node(['serve', dataDir, JSON.stringify([KEY]), ...(fault ? [JSON.stringify(fault)] : [])]);
  const output = outputOf(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (d) => {
      seen += d;
      const line = seen.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    void output.then(({ out, ended }) =>
      reject(new Error(`core ended (${ended}) before listening:\n${out}`)),
    );
  });
  return { url: `http://127.0.0.1:${port}`, child, ended: output.then((o) => o.ended) };
}

async function stop(core: Core): Promise<void> {
  if (core.child.exitCode === null && core.child.signalCode === null) core.child.kill('SIGKILL');
  await core.ended;
}

/** Rows of one query on the data dir (by a process of its own: the store is one process's). */
async function query<T>(dataDir: string, sql: string): Promise<T[]> {
  const child = node(['count', dataDir, sql]);
  const { out, ended } = await outputOf(child);
  if (ended !== '0') throw new Error(`query failed (${ended}):\n${out}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as T[];
}

interface Batch {
  n: number;
  idempotencyKey: string;
  body: string;
}

/** Batch n: LOGS_PER_BATCH lines (and SPANS_PER_BATCH spans) that name it, under a key of its own. */
function makeBatches(count: number, withSpans: boolean): Batch[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, n) => {
    const logs = Array.from({ length: LOGS_PER_BATCH }, (_, i) => ({
      timestamp: now - 60_000 + i,
      level: 'INFO',
      message: `b${n} line ${i}`,
      source: 'backend',
    }));
    const spans = Array.from({ length: withSpans ? SPANS_PER_BATCH : 0 }, (_, i) => ({
      trace_id: (n + 1).toString(16).padStart(32, '0'),
      span_id: (i + 1).toString(16).padStart(16, '0'),
      kind: 'server',
      status: 'ok',
      operation: `b${n}`,
      start_time: now - 30_000 + i,
      duration_ms: 2,
    }));
    return {
      n,
      idempotencyKey: `crash-batch-${n}`,
      body: JSON.stringify(withSpans ? { logs, spans } : { logs }),
    };
  });
}

const agent = new http.Agent({ keepAlive: true });

/** One try of a batch, signed now (a retrying client signs again); the status, 0 if no answer. */
function send(url: string, batch: Batch): Promise<number> {
  const ts = Math.floor(Date.now() / 1000);
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/ingest/v1/batch`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'x-svc-key': KEY.keyId,
          'x-svc-timestamp': String(ts),
          'x-svc-signature': signIngestBody(KEY.secret, ts, batch.body),
          'idempotency-key': batch.idempotencyKey,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(batch.body);
  });
}

/**
 * Sends every batch once from `senders` concurrent clients; `onAnswer` sees each status as it
 * comes. Returns the batches not acknowledged with 200.
 */
async function sendAll(
  url: string,
  batches: readonly Batch[],
  senders: number,
  onAnswer: (status: number) => void = () => {},
): Promise<Batch[]> {
  const queue = [...batches];
  const unacknowledged: Batch[] = [];
  await Promise.all(
    Array.from({ length: senders }, async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        const status = await send(url, batch);
        onAnswer(status);
        if (status !== 200) unacknowledged.push(batch);
      }
    }),
  );
  return unacknowledged;
}

/** How many rows of each batch `table` holds (its `column` names the batch: `b<n>...`). */
async function rowsPerBatch(dataDir: string, table: string, column: string): Promise<Map<number, number>> {
  const rows = await query<{ b: string; n: string }>(
    dataDir,
    `SELECT toUInt32(extract(${column}, '^b(\\\\d+)')) AS b, count() AS n FROM observability.${table}
     WHERE project_id = '${KEY.projectId}' GROUP BY b`,
  );
  return new Map(rows.map((r) => [Number(r.b), Number(r.n)]));
}

/** Every batch's rows, exactly once: the count each batch sent, for every batch. */
const once = (batches: readonly Batch[], perBatch: number) => new Map(batches.map((b) => [b.n, perBatch]));

describe('retries after a crash (SIGKILL) store every batch exactly once', () => {
  const dirs: string[] = [];
  const cores: Core[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-crash-retry-'));
    dirs.push(dir);
    return dir;
  };
  const started = async (dir: string, fault?: CrashFault) => {
    const core = await startCore(dir, fault);
    cores.push(core);
    return core;
  };
  afterAll(async () => {
    await Promise.all(cores.map(stop));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Sends `batches`, lets `crash` end the core, restarts it and retries what was not acknowledged. */
  async function crashAndRetry(
    batches: readonly Batch[],
    senders: number,
    crash: { fault?: CrashFault; killAfterAcks?: number },
  ): Promise<{ dir: string; unacknowledged: number }> {
    const dir = dataDir();
    const first = await started(dir, crash.fault);
    let acks = 0;
    const unacknowledged = await sendAll(first.url, batches, senders, (status) => {
      if (status === 200 && ++acks === crash.killAfterAcks) first.child.kill('SIGKILL');
    });
    // The crash happened (the test would prove nothing otherwise), with batches still unanswered.
    expect(await first.ended).toBe('SIGKILL');
    expect(unacknowledged.length).toBeGreaterThan(0);

    const second = await started(dir);
    const retried = await sendAll(second.url, unacknowledged, senders);
    expect(retried.map((b) => b.n)).toEqual([]);
    await stop(second);
    return { dir, unacknowledged: unacknowledged.length };
  }

  it('when the crash comes right after several requests went in together, before any was acknowledged', async () => {
    const batches = makeBatches(48, false);
    const { dir } = await crashAndRetry(batches, 8, {
      fault: { afterTable: 'logs', minRows: LOGS_PER_BATCH },
    });
    expect(await rowsPerBatch(dir, 'logs', 'message')).toEqual(once(batches, LOGS_PER_BATCH));
  });

  it("when the crash comes after a batch's logs went in and before its spans did: the retry adds the spans only", async () => {
    const batches = makeBatches(48, true);
    const { dir } = await crashAndRetry(batches, 8, {
      fault: { afterTable: 'logs', minRows: LOGS_PER_BATCH, beforeTable: 'spans' },
    });
    expect(await rowsPerBatch(dir, 'logs', 'message')).toEqual(once(batches, LOGS_PER_BATCH));
    expect(await rowsPerBatch(dir, 'spans', 'operation')).toEqual(once(batches, SPANS_PER_BATCH));
  });

  it('when killed at an arbitrary point of 400 concurrent batches', async () => {
    const batches = makeBatches(400, false);
    const { dir } = await crashAndRetry(batches, 4, { killAfterAcks: 150 });
    expect(await rowsPerBatch(dir, 'logs', 'message')).toEqual(once(batches, LOGS_PER_BATCH));
  });
});
