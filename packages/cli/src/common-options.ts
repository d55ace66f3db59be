import type { OptionSpec } from './commands/command';

/** Options every upload command takes. */
export const COMMON_OPTIONS: Record<string, OptionSpec & { short?: string }> = {
  release: {
    type: 'string',
    value: '<version>',
    description:
      'The app version the files belong to: the app_version the SDK sends. Without it a file applies to every release.',
  },
  dsn: {
    type: 'string',
    value: '<dsn>',
    description:
      "The project's ingest DSN, https://<key_id>:<secret>@<host>/<project_id> (default: $SVC_DSN).",
  },
  'dry-run': {
    type: 'boolean',
    description: 'Print what would be uploaded (kind, platform, name, debug id, size, sha256); send nothing.',
  },
  concurrency: { type: 'string', value: '<n>', description: 'Uploads at a time, 1-16 (default 4).' },
  retries: {
    type: 'string',
    value: '<n>',
    description: 'Further attempts after a network error, timeout, 408, 429 or 5xx, 0-10 (default 4).',
  },
  json: {
    type: 'boolean',
    description: 'One JSON object per line: a "file" line per file, then a "summary" line.',
  },
  help: { type: 'boolean', short: 'h', description: 'This help.' },
};

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_RETRIES = 4;
