import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metricsPrefix } from './service-prefix';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const APPS = join(ROOT, 'apps');

/** Shipped source of every app (tests, testing/ and e2e/ aside), relative to the root. */
function shippedSources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (['node_modules', 'testing', 'e2e', 'dist'].includes(name)) return [];
      if (statSync(path).isDirectory()) return walk(path);
      return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
    });
  return readdirSync(APPS)
    .filter((app) => statSync(join(APPS, app, 'src'), { throwIfNoEntry: false })?.isDirectory())
    .flatMap((app) => walk(join(APPS, app, 'src')));
}

describe('metrics: one prefix rule, counted only where served', () => {
  it('the gateway keeps svc_, every service behind it svc_<service>_', () => {
    expect(metricsPrefix('gateway')).toBe('svc_');
    expect(metricsPrefix('core')).toBe('svc_core_');
    expect(metricsPrefix('identity')).toBe('svc_identity_');
  });

  it('no app writes a prefix of its own: each comes from metricsPrefix', () => {
    const offenders = shippedSources()
      .filter((path) => /createPromMetrics\((?![^)]*metricsPrefix\()/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(ROOT, path));
    expect(offenders).toEqual([]);
  });

  it('a main.ts that makes a Prometheus registry also serves it on a metrics port', () => {
    const offenders = shippedSources()
      .filter((path) => path.endsWith('/main.ts'))
      .filter((path) => {
        const text = readFileSync(path, 'utf8');
        return text.includes('createPromMetrics(') && !/what: 'metrics'/.test(text);
      })
      .map((path) => relative(ROOT, path));
    expect(offenders).toEqual([]);
  });
});
