import { commaList, days, defineTool, exactlyOneOf, window } from '@svc/tool-kit';
import { z } from 'zod';

/** Versions one call may compare. */
export const RELEASE_VERSIONS_MAX = 10;

/** Component weights of the score (docs/semantics.md); a missing component's weight is shared out. */
export const RELEASE_WEIGHTS = { crash_free: 0.5, anr: 0.2, startup: 0.15, fps: 0.15 } as const;

/** Most characters of one version. */
export const RELEASE_VERSION_MAX = 100;

export const releaseHealthInput = z
  .strictObject({
    version: z
      .string()
      .trim()
      .min(1)
      .max(RELEASE_VERSION_MAX)
      .describe('One app version. Give this or `versions`.')
      .optional(),
    versions: commaList({
      item: 'version',
      items: 'versions',
      max: RELEASE_VERSIONS_MAX,
      itemMax: RELEASE_VERSION_MAX,
      description: `Up to ${RELEASE_VERSIONS_MAX} app versions, comma-separated: "2.3.0,2.4.0". Give this or \`version\`.`,
    }).optional(),
    days: days(14),
  })
  .superRefine(exactlyOneOf('version', 'versions'));

const rate = z.number().min(0).max(1).nullable();
const component = z.number().min(0).max(1).nullable();

const releaseHealthItem = z.strictObject({
  version: z.string(),
  found: z.boolean().describe('False when the window has no session and no metric sample of this version.'),
  sessions: z.number().int().describe('Sessions of this version started in the window (as last reported).'),
  crash_free_session_rate: rate.describe(
    'Sessions whose status is not crashed / sessions; null without sessions.',
  ),
  anr_rate: rate.describe('Sessions with status anr / sessions; null without sessions.'),
  startup_p95_ms: z.number().nullable().describe('p95 of app_start_ms; null without samples.'),
  fps_avg: z.number().nullable().describe('Average of fps; null without samples.'),
  components: z
    .strictObject({ crash_free: component, anr: component, startup: component, fps: component })
    .describe('Each component scored 0..1 (docs/semantics.md); null when its data is missing.'),
  score: z.number().min(0).max(100).nullable().describe('100 x the weighted mean of the present components.'),
  grade: z.enum(['A', 'B', 'C', 'D', 'F']).nullable().describe('A >= 90, B >= 80, C >= 70, D >= 60, else F.'),
});

export const releaseHealthOutput = z.strictObject({
  window,
  releases: z.array(releaseHealthItem).describe('One entry per version asked for, in the order asked.'),
});

export const releaseHealth = defineTool({
  name: 'release.health',
  title: 'Release health',
  description:
    'Health of one app version, or up to 10 side by side, over the last N days (default 14): ' +
    'sessions, crash-free session rate, ANR rate, startup p95 (app_start_ms), average fps, a 0-100 ' +
    'score from those (weights 0.5 / 0.2 / 0.15 / 0.15, a missing one shared out) and a grade A-F. ' +
    'Returns {window, releases: [{version, found, sessions, ..., components, score, grade}]}; found ' +
    'is false for a version without data. Then apm.stats, crash.stats for details.',
  input: releaseHealthInput,
  output: releaseHealthOutput,
  capability: 'base',
  backend: 'core',
  example: { versions: '2.3.0,2.4.0' },
});
