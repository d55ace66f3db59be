import { readFileSync } from 'node:fs';
import type { WebTracingOptions } from './init';

// The README documents every option. Each options type's keys are written out here as a literal
// the compiler checks both ways (`pnpm typecheck` fails on a key the type lacks or one it has that
// is missing), and the README must name each key in backticks.
const OPTIONS = {
  initTracing: {
    dsn: true,
    service: true,
    appVersion: true,
    sampleRate: true,
    propagateTo: true,
    instrument: true,
    captureErrors: true,
    maxErrors: true,
    exporter: true,
  } satisfies Record<keyof WebTracingOptions, true>,
  exporter: {
    maxQueue: true,
    batchSize: true,
    flushIntervalMs: true,
    maxAttempts: true,
    retryBaseMs: true,
    concurrency: true,
    timeoutMs: true,
    onError: true,
  } satisfies Record<keyof NonNullable<WebTracingOptions['exporter']>, true>,
};

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

it.each(Object.entries(OPTIONS).flatMap(([type, keys]) => Object.keys(keys).map((key) => [type, key])))(
  'the README names the %s option `%s`',
  (_type, key) => {
    expect(readme).toContain(`\`${key}\``);
  },
);
