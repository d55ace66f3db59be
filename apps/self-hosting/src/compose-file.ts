import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot } from '@svc/config';
import { parse } from 'yaml';
import { interpolateValues } from './interpolate';

// docker-compose.yml read as docker compose reads it: YAML with merge keys (`<<: *app`), values
// interpolated from the .env variables, the short forms of environment, volumes and ports spelled
// out. What the checks and the topology test need, nothing more.

export const REPOSITORY_ROOT = findRepositoryRoot(fileURLToPath(new URL('.', import.meta.url)))!;
export const COMPOSE_FILE = join(REPOSITORY_ROOT, 'docker-compose.yml');

export interface VolumeMount {
  /** A named volume, or a host path for a bind mount (`./deploy/...`). */
  source: string;
  target: string;
  readOnly: boolean;
  bind: boolean;
}

export interface PortMapping {
  hostIp: string | undefined;
  published: string | undefined;
  target: number;
}

export interface ComposeService {
  name: string;
  image: string | undefined;
  /** The Dockerfile target the service's image is built from. */
  buildTarget: string | undefined;
  command: string[] | undefined;
  environment: Record<string, string>;
  volumes: VolumeMount[];
  ports: PortMapping[];
  expose: number[];
  healthcheck: string[] | undefined;
  dependsOn: Record<string, string>;
}

export interface ComposeProject {
  /** The interpolated document, as the Compose specification's schema sees it. */
  document: Record<string, unknown>;
  services: Record<string, ComposeService>;
  volumes: string[];
}

/** The raw text of docker-compose.yml, parsed without interpolation (merge keys resolved). */
export function readComposeDocument(path = COMPOSE_FILE): Record<string, unknown> {
  return parse(readFileSync(path, 'utf8'), { merge: true }) as Record<string, unknown>;
}

export function loadCompose(vars: Record<string, string | undefined>, path = COMPOSE_FILE): ComposeProject {
  const document = interpolateValues(readComposeDocument(path), vars);
  const services = (document.services ?? {}) as Record<string, Record<string, unknown>>;
  return {
    document,
    services: Object.fromEntries(Object.entries(services).map(([name, s]) => [name, service(name, s)])),
    volumes: Object.keys((document.volumes ?? {}) as object),
  };
}

function service(name: string, s: Record<string, unknown>): ComposeService {
  const build = s.build as { target?: string } | string | undefined;
  const healthcheck = s.healthcheck as { test?: string[] | string } | undefined;
  return {
    name,
    image: s.image as string | undefined,
    buildTarget: typeof build === 'object' ? build.target : undefined,
    command: s.command === undefined ? undefined : (s.command as string[]),
    environment: environmentOf(s.environment),
    volumes: ((s.volumes ?? []) as (string | Record<string, unknown>)[]).map(volumeOf),
    ports: ((s.ports ?? []) as (string | number)[]).map((p) => portOf(String(p))),
    expose: ((s.expose ?? []) as (string | number)[]).map(Number),
    healthcheck: healthcheck?.test === undefined ? undefined : [healthcheck.test].flat(),
    dependsOn: dependsOnOf(s.depends_on),
  };
}

function environmentOf(env: unknown): Record<string, string> {
  if (env === undefined) return {};
  if (Array.isArray(env))
    return Object.fromEntries(
      env.map((entry: string) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  return Object.fromEntries(
    Object.entries(env as Record<string, unknown>).map(([k, v]) => [k, v === null ? '' : String(v)]),
  );
}

function volumeOf(v: string | Record<string, unknown>): VolumeMount {
  if (typeof v === 'object') {
    const source = String(v.source ?? '');
    return { source, target: String(v.target), readOnly: v.read_only === true, bind: v.type === 'bind' };
  }
  const [source = '', target = '', mode = ''] = v.split(':');
  return { source, target, readOnly: mode.split(',').includes('ro'), bind: /^[./~]/.test(source) };
}

/** `[host_ip:]published:target[/protocol]` or a bare target. */
function portOf(spec: string): PortMapping {
  const parts = spec.replace(/\/(tcp|udp)$/, '').split(':');
  const target = Number(parts.pop());
  const published = parts.pop();
  return { hostIp: parts.pop(), published, target };
}

function dependsOnOf(d: unknown): Record<string, string> {
  if (d === undefined) return {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((name: string) => [name, 'service_started']));
  return Object.fromEntries(
    Object.entries(d as Record<string, { condition?: string }>).map(([name, v]) => [
      name,
      v?.condition ?? 'service_started',
    ]),
  );
}

/** The services in an order where each comes after everything it depends on (compose's start order). */
export function startOrder(services: Record<string, ComposeService>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`depends_on cycle through ${name}`);
    visiting.add(name);
    const s = services[name];
    if (!s) throw new Error(`depends_on names an unknown service: ${name}`);
    for (const dep of Object.keys(s.dependsOn)) visit(dep);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name);
  return order;
}
