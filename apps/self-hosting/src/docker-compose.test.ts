import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConsoleConfig } from '@svc/console';
import { loadGatewayConfig } from '@svc/http-gateway';
import { loadIdentityConfig } from '@svc/identity';
import { APP_SERVICES, loadRecordingReads } from './app-services';
import {
  type ComposeProject,
  loadCompose,
  REPOSITORY_ROOT,
  readComposeDocument,
  startOrder,
} from './compose-file';
import { composeSpecErrors } from './compose-spec';
import { readDockerfile } from './dockerfile';
import { InterpolationError, referencedVariables } from './interpolate';
import { containerEnv, exampleEnv, generatedEnv } from './stack-env';

// docker-compose.yml and the Dockerfile against the Compose specification and against what the
// services' own config.ts loaders read: a variable renamed, a port moved, a required setting added
// to an app fails here, before anyone runs `docker compose up`. (The services run with this
// environment in apps/standalone/src/e2e/compose-topology.e2e.test.ts.)

const read = (path: string) => readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'svc-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The .env a self-hoster makes with deploy/make-env.sh. */
const env = generatedEnv(dir);
const compose: ComposeProject = loadCompose(env);
const stages = readDockerfile();
const raw = readComposeDocument() as { services: Record<string, { environment?: Record<string, string> }> };
const rawText = read('docker-compose.yml');

/** Where the infrastructure services listen inside the network (their images' defaults). */
const INFRA_PORTS: Record<string, number[]> = { postgres: [5432], clickhouse: [8123, 9000] };
const SECRET_NAME = /SECRET|PASSWORD|_KEY$/;

const listenersOf = (name: string) => {
  const app = APP_SERVICES.find((a) => a.name === name);
  if (!app) return (INFRA_PORTS[name] ?? []).map((port) => ({ what: name, host: '0.0.0.0', port }));
  const s = compose.services[name]!;
  return app.listeners(app.load(containerEnv(s, stages.get(s.buildTarget ?? ''))));
};

/** The variables docs/self-hosting.md lists as left at their defaults by docker-compose.yml. */
function documentedOptional(): Set<string> {
  const doc = read('docs/self-hosting.md');
  const start = doc.indexOf('## Variables docker-compose.yml leaves at their defaults');
  expect(start).toBeGreaterThanOrEqual(0);
  const next = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return new Set([...section.matchAll(/`(SVC_[A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

describe('docker-compose.yml', () => {
  it('is a valid Compose file (the specification JSON schema), and an invalid one is caught', () => {
    expect(composeSpecErrors(compose.document)).toEqual([]);
    const broken = structuredClone(compose.document) as { services: Record<string, Record<string, unknown>> };
    broken.services.identity!.depends_on = { postgres: { condition: 'service_heathy' } };
    broken.services.identity!.restart_policy = 'always';
    expect(composeSpecErrors(broken).join('\n')).toMatch(/condition[\s\S]*restart_policy|restart_policy/);
  });

  it('starts only with every secret set: .env.example leaves them empty, make-env.sh fills them', () => {
    const { all, required } = referencedVariables(rawText);
    const example = exampleEnv();
    // Every variable the file names is explained in .env.example.
    expect([...all].filter((v) => !(v in example)).sort()).toEqual([]);
    expect([...required].sort()).toEqual(
      [
        'SVC_AUDIT_CHECKPOINT_KEY',
        'SVC_CLICKHOUSE_PASSWORD',
        'SVC_INTERNAL_SECRET',
        'SVC_POSTGRES_PASSWORD',
        'SVC_RECALL_MASTER_KEY',
      ].sort(),
    );
    for (const name of required) {
      expect(example[name]).toBe('');
      expect(env[name]!.length).toBeGreaterThanOrEqual(32);
    }
    expect(() => loadCompose(example)).toThrow(InterpolationError);
    expect(() => loadCompose(example)).toThrow(/SVC_POSTGRES_PASSWORD|SVC_INTERNAL_SECRET/);
  });

  it('commits no secret: secrets come from .env only, which git and docker builds ignore', () => {
    for (const [name, value] of Object.entries(exampleEnv()))
      if (SECRET_NAME.test(name)) expect(`${name}=${value}`).toBe(`${name}=`);
    for (const [service, s] of Object.entries(raw.services))
      for (const [name, value] of Object.entries(s.environment ?? {})) {
        if (SECRET_NAME.test(name))
          expect(`${service}.${name}: ${value}`).toMatch(/: \$\{[A-Z0-9_]+(:?[-?][^}]*)?\}$/);
        // A password inside a URL is a reference too.
        const userinfo = /^[a-z]+:\/\/[^/:@]+:([^@]+)@/.exec(String(value));
        if (userinfo) expect(`${service}.${name}: ${userinfo[1]}`).toMatch(/: \$\{[A-Z0-9_]+[^}]*\}$/);
      }
    expect(() =>
      execFileSync('git', ['check-ignore', '--quiet', '.env'], { cwd: REPOSITORY_ROOT, stdio: 'ignore' }),
    ).not.toThrow();
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['.env', '.env.*']));
  });

  it.each(APP_SERVICES.map((a) => [a.name, a] as const))(
    '%s: runs its bundle with the flags of its start script, from its own image target',
    (name) => {
      const s = compose.services[name]!;
      expect(s.buildTarget).toBe(name);
      expect(s.image).toMatch(new RegExp(`^svc/${name}:`));
      const stage = stages.get(name);
      expect(stage).toBeDefined();
      const start = JSON.parse(read(`apps/${name}/package.json`)).scripts.start as string;
      const flags = start
        .replace(/^exec node /, '')
        .replace('--import tsx', '')
        .replace('src/main.ts', '');
      const command = ['node', ...flags.split(/\s+/).filter(Boolean), `apps/${name}/dist/main.js`];
      expect(s.command).toEqual(command);
      expect(stage!.cmd).toEqual(command);
    },
  );

  it.each(APP_SERVICES.map((a) => [a.name, a] as const))(
    '%s: its loader accepts the environment, every variable it reads is set or documented',
    (name, app) => {
      const s = compose.services[name]!;
      const given = containerEnv(s, stages.get(name));
      const { reads } = loadRecordingReads(app, given);
      const svcReads = [...reads].filter((v) => v.startsWith('SVC_'));
      // Set for it in docker-compose.yml but never read: a typo, or a variable the service no longer has.
      expect(Object.keys(s.environment).filter((v) => !reads.has(v))).toEqual([]);
      const optional = documentedOptional();
      expect(svcReads.filter((v) => !(v in given) && !optional.has(v)).sort()).toEqual([]);
    },
  );

  it.each(APP_SERVICES.map((a) => [a.name, a] as const))(
    '%s: listens on every interface on the ports it exposes, and its health check probes the first',
    (name) => {
      const s = compose.services[name]!;
      const stage = stages.get(name)!;
      const listeners = listenersOf(name);
      for (const l of listeners) {
        expect(`${l.what} ${l.host}`).toBe(`${l.what} 0.0.0.0`);
        expect([...s.expose, ...stage.expose]).toContain(l.port);
      }
      const probe = ['node', 'deploy/healthcheck.mjs', `http://127.0.0.1:${listeners[0]!.port}/healthz`];
      expect(stage.healthcheck).toEqual(probe);
      if (s.healthcheck) expect(s.healthcheck).toEqual(['CMD', ...probe]);
    },
  );

  it('publishes only the gateway and the console, each on the port it listens on, where .env says', () => {
    const published = Object.values(compose.services).filter((s) => s.ports.length > 0);
    expect(published.map((s) => s.name).sort()).toEqual(['console', 'http-gateway']);
    const where = {
      'http-gateway': { what: 'gateway', bind: env.SVC_GATEWAY_BIND, port: env.SVC_GATEWAY_PORT },
      console: { what: 'console', bind: env.SVC_CONSOLE_BIND, port: env.SVC_CONSOLE_PUBLISHED_PORT },
    };
    for (const [name, { what, bind, port }] of Object.entries(where)) {
      const s = compose.services[name]!;
      const listener = listenersOf(name).find((l) => l.what === what)!;
      expect(s.ports).toEqual([{ hostIp: bind, published: port, target: listener.port }]);
      expect(bind).toBe('127.0.0.1');
    }
  });

  it('tells the console where people open it and the gateway: http://localhost:<published port>, or .env', () => {
    const { publicUrl, gatewayPublicUrl } = loadConsoleConfig(
      containerEnv(compose.services.console!, stages.get('console')),
    );
    expect(publicUrl).toBe(`http://localhost:${env.SVC_CONSOLE_PUBLISHED_PORT}`);
    expect(gatewayPublicUrl).toBe(`http://localhost:${env.SVC_GATEWAY_PORT}`);
    // Other published ports follow, and the public URLs set in .env (behind TLS) win.
    const moved = loadCompose({ ...env, SVC_CONSOLE_PUBLISHED_PORT: '9094', SVC_GATEWAY_PORT: '9092' });
    expect(moved.services.console!.environment).toMatchObject({
      SVC_CONSOLE_PUBLIC_URL: 'http://localhost:9094',
      SVC_PUBLIC_URL: 'http://localhost:9092',
    });
    const tls = loadCompose({
      ...env,
      SVC_CONSOLE_PUBLIC_URL: 'https://console.example.com',
      SVC_PUBLIC_URL: 'https://mcp.example.com',
    });
    expect(tls.services.console!.environment).toMatchObject({
      SVC_CONSOLE_PUBLIC_URL: 'https://console.example.com',
      SVC_PUBLIC_URL: 'https://mcp.example.com',
    });
    expect(tls.services['http-gateway']!.environment.SVC_PUBLIC_URL).toBe('https://mcp.example.com');
  });

  it('tells identity and the gateway the same OAuth addresses: resource, issuer, consent page', () => {
    const oauthOf = (project: ComposeProject) => {
      const envOf = (name: string) => containerEnv(project.services[name]!, stages.get(name));
      const gateway = loadGatewayConfig(envOf('http-gateway'));
      return {
        identity: loadIdentityConfig(envOf('identity')).oauth,
        gateway: {
          resource: `${gateway.publicUrl}/mcp`,
          issuer: gateway.oauthIssuer ?? 'http://localhost:8081/oauth',
        },
        console: loadConsoleConfig(envOf('console')).publicUrl,
      };
    };
    for (const project of [
      compose,
      loadCompose({ ...env, SVC_GATEWAY_PORT: '9092', SVC_CONSOLE_PUBLISHED_PORT: '9094' }),
      loadCompose({
        ...env,
        SVC_PUBLIC_URL: 'https://mcp.example.com',
        SVC_IDENTITY_PUBLIC_URL: 'https://mcp.example.com',
        SVC_CONSOLE_PUBLIC_URL: 'https://console.example.com',
      }),
    ]) {
      const { identity, gateway, console } = oauthOf(project);
      expect(gateway).toEqual({ resource: identity.resource, issuer: identity.issuer });
      expect(identity.consoleUrl).toBe(console);
    }
    expect(
      oauthOf(loadCompose({ ...env, SVC_IDENTITY_PUBLIC_URL: 'https://id.example.com' })).gateway.issuer,
    ).toBe('https://id.example.com/oauth');
  });

  it('names every other service by its service name and a port it listens on', () => {
    const names = new Set(Object.keys(compose.services));
    const postgres = compose.services.postgres!.environment;
    const databases = new Set([
      postgres.POSTGRES_DB!,
      ...[...read('deploy/postgres/init-databases.sql').matchAll(/CREATE DATABASE (\w+)/g)].map((m) => m[1]!),
    ]);
    let checked = 0;
    for (const s of Object.values(compose.services))
      for (const [variable, value] of Object.entries(s.environment)) {
        if (!/^[a-z]+:\/\//.test(value)) continue;
        const url = new URL(value);
        if (!names.has(url.hostname)) continue;
        checked++;
        const ports = listenersOf(url.hostname).map((l) => l.port);
        expect(`${s.name} ${variable} -> ${url.hostname}:${url.port}`).toBe(
          `${s.name} ${variable} -> ${url.hostname}:${ports.includes(Number(url.port)) ? url.port : ports[0]}`,
        );
        if (url.protocol === 'postgres:') {
          expect(url.username).toBe(postgres.POSTGRES_USER);
          expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
          expect(databases).toContain(url.pathname.slice(1));
        }
      }
    expect(checked).toBeGreaterThanOrEqual(15);
    // The init script is what creates recall's database, on the first start of an empty volume.
    expect(compose.services.postgres!.volumes).toContainEqual(
      expect.objectContaining({
        source: './deploy/postgres/init-databases.sql',
        target: expect.stringMatching(/^\/docker-entrypoint-initdb\.d\//),
      }),
    );
  });

  it('starts each service after what it depends on is healthy', () => {
    expect(startOrder(compose.services)).toEqual(expect.arrayContaining(Object.keys(compose.services)));
    for (const s of Object.values(compose.services))
      for (const [dep, condition] of Object.entries(s.dependsOn)) {
        expect(`${s.name} -> ${dep}: ${condition}`).toBe(`${s.name} -> ${dep}: service_healthy`);
        const target = compose.services[dep]!;
        expect(target.healthcheck ?? stages.get(target.buildTarget ?? '')?.healthcheck).toBeDefined();
      }
    // The gateway waits for every backend it serves tools of, the console for everything it calls.
    expect(Object.keys(compose.services['http-gateway']!.dependsOn).sort()).toEqual(
      ['copilot', 'identity', 'observability-core', 'recall'].sort(),
    );
    expect(Object.keys(compose.services.console!.dependsOn).sort()).toEqual(
      ['http-gateway', 'identity', 'recall'].sort(),
    );
  });

  it('keeps every store on a declared named volume, and each data dir on one', () => {
    for (const s of Object.values(compose.services))
      for (const v of s.volumes) if (!v.bind) expect(compose.volumes).toContain(v.source);
    for (const name of ['identity', 'observability-core', 'recall']) {
      const s = compose.services[name]!;
      const dataDir = containerEnv(s, stages.get(name)).SVC_DATA_DIR;
      expect(s.volumes.map((v) => v.target)).toContain(dataDir);
    }
    expect(compose.services.postgres!.volumes.map((v) => v.target)).toContain('/var/lib/postgresql/data');
    expect(compose.services.clickhouse!.volumes.map((v) => v.target)).toContain('/var/lib/clickhouse');
  });

  it('pins the server images: PostgreSQL 15 as tested, ClickHouse at the engine version chDB embeds', async () => {
    expect(compose.services.postgres!.image).toBe('postgres:15');
    const { query } = (await import('chdb')) as { query(sql: string, format: string): string };
    const [major, minor] = query('SELECT version()', 'CSV').replace(/"/g, '').trim().split('.');
    expect(compose.services.clickhouse!.image).toBe(`clickhouse/clickhouse-server:${major}.${minor}`);
  });
});

describe('Dockerfile', () => {
  it('runs every service image as the unprivileged node user from the shared runtime stage', () => {
    const text = read('Dockerfile');
    const runtime = text.slice(text.indexOf('AS runtime'), text.indexOf('AS identity'));
    expect(runtime).toMatch(/^USER node$/m);
    for (const app of APP_SERVICES) expect(stages.get(app.name)?.from).toBe('runtime');
    // After USER node no stage switches back.
    expect(text.slice(text.indexOf('AS runtime')).match(/^USER /gm)).toEqual(['USER ']);
  });
});
