import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createCoreApp } from '../app';
import { migrateCore } from '../storage/migrate';
import { openStorage } from '../storage/open';
import { INTERNAL_SECRET, staticIngestKeys, type TestKey } from './core-harness';

// Test fixture run as a process of its own (crash-retry.test.ts, which bundles it once): the core
// app on an embedded store in a data dir, listening on loopback, as main.ts runs it (ingest keys are
// test data). The test kills it with SIGKILL and starts it again on the same data dir.
//
//   node --import tsx core-process.ts serve <data dir> <keys JSON> [<fault JSON>]
//     prints {"port": n} once listening. A fault kills the process itself with SIGKILL at a
//     chosen point of the write path (a crash the test can place exactly, see CrashFault).
//   node --import tsx core-process.ts count <data dir> <SQL>
//     prints the rows of one query as JSON and exits (the data dir is the store's alone).

/**
 * Where the process kills itself: right after the first insert into `afterTable` with more than
 * `minRows` rows (a group of several requests, when each sends fewer) has been stored; or, when
 * `beforeTable` is named too, at the first insert into `beforeTable` after that one, before it
 * reaches the engine.
 */
export interface CrashFault {
  afterTable: string;
  minRows: number;
  beforeTable?: string;
}

const [mode, dataDir, arg, faultArg] = process.argv.slice(2);
const storage = { kind: 'embedded' as const, path: join(dataDir!, 'clickhouse'), database: 'observability' };

function crashing(ch: ClickHouse, fault: CrashFault): ClickHouse {
  let armed = false;
  const die = () => process.kill(process.pid, 'SIGKILL');
  return {
    ...ch,
    async insert(table, rows, options) {
      if (armed && table === fault.beforeTable) die();
      await ch.insert(table, rows, options);
      if (!armed && table === fault.afterTable && rows.length > fault.minRows) {
        if (fault.beforeTable === undefined) die();
        armed = true;
      }
    },
  };
}

if (mode === 'count') {
  const ch = await openStorage(storage, 1);
  const rows = await ch.query(arg!);
  await ch.close();
  process.stdout.write(`${JSON.stringify(rows)}\n`);
} else if (mode === 'serve') {
  const keys = JSON.parse(arg!) as TestKey[];
  const ch = await openStorage(storage, 4);
  await migrateCore(ch);
  const app = createCoreApp({
    ch: faultArg ? crashing(ch, JSON.parse(faultArg) as CrashFault) : ch,
    ingestKeys: staticIngestKeys(new Map(keys.map((key) => [key.keyId, key]))),
    internalSecret: INTERNAL_SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
