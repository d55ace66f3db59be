import { readFileSync } from 'node:fs';
import type { LogFileLimits } from './log-files';
import type { MobilePlatform } from './platform';
import type { MobileSdkOptions } from './sdk';

// The README documents every option. Each options type's keys are written out here as a literal
// the compiler checks both ways (`pnpm typecheck` fails on a key the type lacks or one it has that
// is missing), and the README must name each key in backticks.
const OPTIONS = {
  init: {
    dsn: true,
    appVersion: true,
    service: true,
    recallEndpoint: true,
    sampleRate: true,
    propagateTo: true,
    instrument: true,
    userId: true,
    deviceId: true,
    appStart: true,
    sampleIntervalMs: true,
    sessionTimeoutMs: true,
    maxBreadcrumbs: true,
    logFiles: true,
    uploadLogAfterCrash: true,
    exporter: true,
    onError: true,
  } satisfies Record<keyof MobileSdkOptions, true>,
  logFiles: { maxDayBytes: true, keepDays: true } satisfies Record<keyof LogFileLimits, true>,
  exporter: {
    maxQueue: true,
    batchSize: true,
    flushIntervalMs: true,
    maxAttempts: true,
    retryBaseMs: true,
    concurrency: true,
    timeoutMs: true,
  } satisfies Record<keyof NonNullable<MobileSdkOptions['exporter']>, true>,
  platform: {
    storage: true,
    crypto: true,
    compression: true,
    device: true,
    lifecycle: true,
    errors: true,
    fetch: true,
    sinceAppStartMs: true,
    memoryMb: true,
    afterFirstFrame: true,
  } satisfies Record<keyof MobilePlatform, true>,
};

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

it.each(Object.entries(OPTIONS).flatMap(([type, keys]) => Object.keys(keys).map((key) => [type, key])))(
  'the README names the %s option `%s`',
  (_type, key) => {
    expect(readme).toContain(`\`${key}\``);
  },
);
