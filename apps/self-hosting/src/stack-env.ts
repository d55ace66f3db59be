import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ComposeService, REPOSITORY_ROOT } from './compose-file';
import type { DockerStage } from './dockerfile';
import { parseDotenv } from './dotenv';

// The variables docker compose interpolates docker-compose.yml with (.env), and the environment a
// service's container ends up with.

export const ENV_EXAMPLE = join(REPOSITORY_ROOT, '.env.example');
const MAKE_ENV = join(REPOSITORY_ROOT, 'deploy', 'make-env.sh');

/** .env.example as committed: every secret empty. */
export function exampleEnv(): Record<string, string> {
  return parseDotenv(readFileSync(ENV_EXAMPLE, 'utf8'));
}

/** The .env a self-hoster gets from `sh deploy/make-env.sh`, written into `dir`. */
export function generatedEnv(dir: string): Record<string, string> {
  const file = join(dir, '.env');
  execFileSync('sh', [MAKE_ENV, file], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  return parseDotenv(readFileSync(file, 'utf8'));
}

/** Set by the image, not the service: the search path of its shell (deploy/bin first). */
const IMAGE_ONLY = new Set(['PATH']);

/**
 * What the service's process sees in its container: the ENV of the Dockerfile target it is built
 * from, then its compose `environment` on top (compose wins, as in Docker).
 */
export function containerEnv(
  service: ComposeService,
  stage: DockerStage | undefined,
): Record<string, string> {
  const image = Object.fromEntries(Object.entries(stage?.env ?? {}).filter(([k]) => !IMAGE_ONLY.has(k)));
  return { ...image, ...service.environment };
}
