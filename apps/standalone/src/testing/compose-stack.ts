import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPostgres } from '@svc/postgres';
import { startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import {
  type ComposeProject,
  type ComposeService,
  containerEnv,
  type DockerStage,
  generatedEnv,
  type LoopbackTopology,
  loadCompose,
  loopbackArgs,
  loopbackEnv,
  REPOSITORY_ROOT,
  readDockerfile,
  startOrder,
} from '@svc/self-hosting';
import { reservePorts } from './free-ports';
import { RunError, runToEnd } from './run-to-end';
import { CONDITION_CEILING_MS, waitOnProgress } from './wait-on-progress';

// Test-only: docker-compose.yml's services as separate processes on this machine, each started with
// its compose command and the environment compose gives its container (the image's ENV, then the
// service's `environment`, interpolated from the .env deploy/make-env.sh writes), moved onto
// loopback: hostnames -> 127.0.0.1 and free ports, volumes -> temp dirs. Each app runs from the
// tree its image holds (deploy/assemble-app.mjs: its bundles and only their npm packages), in
// compose's start order, each once its dependencies' health checks pass, probed by the image's
// own HEALTHCHECK command.
//
// No container engine and no ClickHouse server here: postgres is a throwaway PostgreSQL 15 cluster
// set up as the postgres image sets itself up, and the core runs on embedded chDB from the
// repository's own bundle (the image carries no chDB) unless `clickhouse` gives a server.

/** One run of a HEALTHCHECK command: it gives up on its own after 3 s; this is for a stuck one. */
const HEALTH_RUN_CEILING_MS = CONDITION_CEILING_MS;

export interface ComposeStack {
  compose: ComposeProject;
  /** Each compose service's address on loopback, by `<service>:<container port>`. */
  url(service: string, port: number): string;
  /** The service's environment as its process got it. */
  env(service: string): Record<string, string>;
  /** `docker compose run --rm identity svc <args>`: the admin CLI in identity's image and environment. */
  svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  output(service: string): string;
  /** Stops every process and removes every temp dir, whatever state the start reached. */
  dispose(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  out: string;
}

/** How the core reaches ClickHouse: a server's URL (`http://user:password@host:8123`), else chDB. */
export interface ClickHouseChoice {
  url: string | undefined;
}

export async function startComposeStack(clickhouse: ClickHouseChoice): Promise<ComposeStack> {
  const work = mkdtempSync(join(tmpdir(), 'svc-compose-stack-'));
  const vars = generatedEnv(work);
  const compose = loadCompose(vars);
  const stages = readDockerfile();
  const running = new Map<string, Running>();
  const envs = new Map<string, Record<string, string>>();
  const roots = new Map<string, string>();
  let cluster: ThrowawayCluster | undefined;
  let reserved: Awaited<ReturnType<typeof reservePorts>> | undefined;
  /** The loopback ports of a service's addresses. */
  const portsOf = (name: string) =>
    [...topology.addresses]
      .filter(([key]) => key.startsWith(`${name}:`))
      .map(([, address]) => Number(address.split(':').pop()));
  const topology: LoopbackTopology = { addresses: new Map(), volumes: new Map() };

  // Should the test process end first (a timed-out hook), no service outlives it.
  const killAll = () => {
    for (const r of running.values()) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const dispose = async () => {
    process.removeListener('exit', killAll);
    await Promise.all([...running.values()].map((r) => stop(r.child)));
    await reserved?.releaseAll();
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  };

  try {
    cluster = await startThrowawayCluster();
    await setUpLikeThePostgresImage(cluster.url, compose.services.postgres!);
    topology.addresses.set('postgres:5432', new URL(cluster.url).host);
    const chServer = clickhouse.url ? new URL(clickhouse.url) : undefined;
    if (chServer) topology.addresses.set('clickhouse:8123', chServer.host);

    const apps = startOrder(compose.services).filter((name) => compose.services[name]!.buildTarget);
    // Every app's ports held from the start until its service starts: ports handed out and freed at
    // once could go to two services (or another process), and a client then reach the wrong one.
    const wanted = apps.flatMap((name) => {
      const s = compose.services[name]!;
      const stage = stages.get(s.buildTarget!)!;
      return [...new Set([...s.expose, ...stage.expose, ...s.ports.map((p) => p.target)])].map(
        (port) => `${name}:${port}`,
      );
    });
    reserved = await reservePorts(wanted.length);
    for (const [i, key] of wanted.entries()) topology.addresses.set(key, `127.0.0.1:${reserved.ports[i]}`);
    for (const name of apps) {
      const s = compose.services[name]!;
      for (const v of s.volumes) {
        const dir = join(work, 'volumes', `${name}-${v.source}`);
        mkdirSync(dir, { recursive: true });
        topology.volumes.set(`${name}:${v.target}`, dir);
      }
    }

    for (const name of apps) {
      const s = compose.services[name]!;
      const embedded = name === 'observability-core' && !chServer;
      if (embedded)
        await runToEnd('pnpm', ['--silent', '--filter', '@svc/observability-core', 'run', 'build'], {
          cwd: REPOSITORY_ROOT,
        });
      roots.set(name, embedded ? REPOSITORY_ROOT : await assembleImage(s, work));
      const env = loopbackEnv(s, containerEnv(s, stages.get(s.buildTarget!)), topology);
      if (embedded)
        for (const k of Object.keys(env))
          if (k.startsWith('SVC_CLICKHOUSE_') && k !== 'SVC_CLICKHOUSE_DATABASE') delete env[k];
      if (name === 'observability-core' && chServer) {
        // The test server's own user, and a database of this run's own (dropped by the caller).
        env.SVC_CLICKHOUSE_USER = decodeURIComponent(chServer.username || 'default');
        env.SVC_CLICKHOUSE_PASSWORD = decodeURIComponent(chServer.password);
        env.SVC_CLICKHOUSE_DATABASE = `t_compose_${process.pid}_${Date.now()}`;
        env.SVC_CLICKHOUSE_URL = `${chServer.protocol}//${chServer.host}`;
      }
      envs.set(name, env);
      await reserved!.release(portsOf(name));
      running.set(name, launch(s, roots.get(name)!, env));
      await waitHealthy(s, stages.get(s.buildTarget!)!, roots.get(name)!, topology, running.get(name)!);
    }
  } catch (err) {
    const outputs = [...running].map(([name, r]) => `--- ${name}\n${r.out.slice(-4000)}`).join('\n');
    await dispose();
    throw new Error(`${(err as Error).message}\n${outputs}`, { cause: err });
  }

  return {
    compose,
    url: (service, port) => `http://${topology.addresses.get(`${service}:${port}`)}`,
    env: (service) => envs.get(service)!,
    svc: async (args) => {
      try {
        const { stdout, stderr } = await runToEnd(join(roots.get('identity')!, 'deploy/bin/svc'), args, {
          env: { ...processBase(), ...envs.get('identity') },
        });
        return { code: 0, stdout, stderr };
      } catch (err) {
        if (!(err instanceof RunError)) throw err;
        return { code: err.code ?? 1, stdout: err.stdout, stderr: err.stderr };
      }
    },
    output: (service) => running.get(service)?.out ?? '',
    dispose,
  };
}

/** What a process needs beside the service's own variables: node on PATH, as in the image. */
function processBase(): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/tmp' };
}

/** The postgres image on an empty volume: its POSTGRES_USER and POSTGRES_DB, then the init scripts. */
async function setUpLikeThePostgresImage(adminUrl: string, postgres: ComposeService): Promise<void> {
  const { POSTGRES_USER: user, POSTGRES_PASSWORD: password, POSTGRES_DB: database } = postgres.environment;
  if (!user || !password || !database)
    throw new Error('postgres service: POSTGRES_USER, _PASSWORD, _DB expected');
  const admin = await createPostgres({ url: adminUrl });
  try {
    await admin.exec(`CREATE ROLE "${user}" LOGIN SUPERUSER PASSWORD '${password.replace(/'/g, "''")}'`);
    await admin.exec(`CREATE DATABASE "${database}" OWNER "${user}"`);
  } finally {
    await admin.close();
  }
  const asUser = new URL(adminUrl);
  asUser.username = user;
  asUser.password = password;
  asUser.pathname = `/${database}`;
  const db = await createPostgres({ url: asUser.toString() });
  try {
    for (const v of postgres.volumes)
      if (v.target.startsWith('/docker-entrypoint-initdb.d/') && v.target.endsWith('.sql'))
        await db.exec(readFileSync(join(REPOSITORY_ROOT, v.source), 'utf8'));
  } finally {
    await db.close();
  }
}

/** The image's /app for the service, as the Dockerfile's build stage assembles it. */
async function assembleImage(service: ComposeService, work: string): Promise<string> {
  const root = join(work, 'images', service.name);
  await runToEnd(
    process.execPath,
    [join(REPOSITORY_ROOT, 'deploy/assemble-app.mjs'), service.buildTarget!, root],
    {
      cwd: REPOSITORY_ROOT,
    },
  );
  return root;
}

function launch(service: ComposeService, root: string, env: Record<string, string>): Running {
  const [command, ...args] = service.command ?? [];
  if (command !== 'node') throw new Error(`${service.name}: expected a node command, got ${command}`);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...processBase(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r: Running = { child, out: '' };
  child.stdout?.on('data', (d) => (r.out += d));
  child.stderr?.on('data', (d) => (r.out += d));
  return r;
}

/**
 * The image's HEALTHCHECK command, run until it passes (compose's service_healthy), for as long as
 * the service's process progresses (waitOnProgress).
 */
async function waitHealthy(
  service: ComposeService,
  stage: DockerStage,
  root: string,
  topology: LoopbackTopology,
  r: Running,
): Promise<void> {
  const [command, ...args] = loopbackArgs(
    service,
    service.healthcheck?.slice(1) ?? stage.healthcheck!,
    topology,
  );
  if (command !== 'node') throw new Error(`${service.name}: expected a node health check, got ${command}`);
  await waitOnProgress({
    what: `${service.name} not healthy`,
    pid: r.child.pid,
    check: async () => {
      try {
        await runToEnd(process.execPath, args, { cwd: root, ceilingMs: HEALTH_RUN_CEILING_MS });
        return true;
      } catch {
        return undefined;
      }
    },
    output: () => r.out,
    gone: () => (r.child.exitCode === null ? undefined : `exited with ${r.child.exitCode}`),
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
