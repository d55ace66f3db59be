// A throwaway PostgreSQL 15 server for tests of the `pg` path: initdb + pg_ctl in a temp dir on
// a free loopback port. PostgreSQL refuses to run as root, so as root it runs as `postgres`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/**
 * How long initdb or pg_ctl may take, at most. They end by themselves (pg_ctl -w polls the server
 * until it accepts connections, and stops early when it died), so this only guards against a hang:
 * far above what a loaded machine needs (it runs them several times slower), never a bound a slow
 * start runs into.
 */
const CLUSTER_CEILING_S = 600;
export const PG_BIN = '/usr/lib/postgresql/15/bin';
export const hasPostgresBinaries = existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'));

export interface ThrowawayCluster {
  url: string;
  /** The postmaster's pid: its children are the server's other processes (a bench reads their CPU). */
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  const exec = (bin: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args], {
          timeout: CLUSTER_CEILING_S * 1000,
        })
      : run(join(PG_BIN, bin), args, { timeout: CLUSTER_CEILING_S * 1000 });
  const stop = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) {
      const { uid, gid } = await postgresIds();
      await chown(dir, uid, gid);
    }
    await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=20`;
    await exec('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      String(CLUSTER_CEILING_S),
      '-o',
      serverOptions,
      'start',
    ]);
    // postmaster.pid's first line is the postmaster's pid.
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
