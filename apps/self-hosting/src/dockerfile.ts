import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from './compose-file';

// The Dockerfile's stages as the checks need them: per target, the environment, command, exposed
// ports and health check it ends up with, a stage built FROM another inheriting what it sets.
// Only the instructions this repository's Dockerfile uses are read; others are skipped.

export const DOCKERFILE = join(REPOSITORY_ROOT, 'Dockerfile');

export interface DockerStage {
  name: string;
  /** The base: an image, or another stage of the file. */
  from: string;
  env: Record<string, string>;
  cmd: string[] | undefined;
  expose: number[];
  healthcheck: string[] | undefined;
}

/** Instructions with their continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push((pending + line).trim());
    pending = '';
  }
  if (pending.trim()) out.push(pending.trim());
  return out;
}

function jsonArray(text: string, what: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`${what} must be a JSON array of strings (exec form): ${text}`);
  return value;
}

/** `ENV A=1 B="two words"`: the pairs, quotes removed (the `ENV A 1` form is not used here). */
function envPairs(text: string): [string, string][] {
  return [...text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)].map((m) => [m[1]!, m[3] ?? m[2]!]);
}

export function parseDockerfile(text: string): Map<string, DockerStage> {
  const stages = new Map<string, DockerStage>();
  let current: DockerStage | undefined;
  for (const line of instructions(text)) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    const op = keyword.toUpperCase();
    if (op === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!m) throw new Error(`unreadable FROM: ${line}`);
      const base = stages.get(m[1]!);
      current = {
        name: m[2] ?? `stage-${stages.size}`,
        from: m[1]!,
        env: { ...base?.env },
        cmd: base?.cmd,
        expose: [...(base?.expose ?? [])],
        healthcheck: base?.healthcheck,
      };
      stages.set(current.name, current);
      continue;
    }
    if (!current) continue;
    if (op === 'ENV') for (const [k, v] of envPairs(args)) current.env[k] = v;
    else if (op === 'CMD') current.cmd = jsonArray(args, 'CMD');
    else if (op === 'EXPOSE') current.expose.push(...args.split(/\s+/).map((p) => Number(p.split('/')[0])));
    else if (op === 'HEALTHCHECK') {
      const at = args.search(/\bCMD\s+\[/);
      if (at < 0) throw new Error(`HEALTHCHECK must use CMD [...] (exec form): ${line}`);
      current.healthcheck = jsonArray(args.slice(at + 3).trim(), 'HEALTHCHECK CMD');
    }
  }
  return stages;
}

export function readDockerfile(path = DOCKERFILE): Map<string, DockerStage> {
  return parseDockerfile(readFileSync(path, 'utf8'));
}
