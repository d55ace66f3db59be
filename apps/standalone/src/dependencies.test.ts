import { readFileSync } from 'node:fs';

// The standalone runs every service in one process from one bundle (scripts/build-app.mjs), which
// leaves only the standalone's own npm dependencies out. A package a service declares is outside
// that service's own bundle and image; bundled into the standalone's instead, one that reads a file
// beside its code at run time breaks there: source-map's WASM left crashes unsymbolicated, Pico's
// CSS stopped the console. So the standalone declares what each of its services declares.

const SERVICES = ['observability-core', 'identity', 'recall', 'copilot', 'console', 'http-gateway'];
/** Declared by services for their `start` script, never imported by their code. */
const RUNNERS = new Set(['tsx']);

const dependenciesOf = (app: string): string[] =>
  Object.keys(
    (
      JSON.parse(readFileSync(new URL(`../../${app}/package.json`, import.meta.url), 'utf8')) as {
        dependencies?: Record<string, string>;
      }
    ).dependencies ?? {},
  ).filter((name) => !name.startsWith('@svc/') && !RUNNERS.has(name));

describe("the standalone's dependencies", () => {
  it.each(SERVICES)('hold every npm package %s declares', (service) => {
    const own = new Set(dependenciesOf('standalone'));
    expect(dependenciesOf(service).filter((name) => !own.has(name))).toEqual([]);
  });
});
