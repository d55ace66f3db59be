import { createHash } from 'node:crypto';
import { CRASH_ISSUES, type CrashIssue, RECURRING_QUIET, type SourceFrame } from './crash-issues';
import { rawFramesOf } from './frame-layout';
import type { Random } from './random';
import type { DemoBreadcrumb, DemoCrash, Platform } from './records';
import { compareVersions } from './versions';

const DAY = 24 * 60 * 60_000;

export interface CrashScene {
  platform: Platform;
  appVersion: string;
  atMs: number;
  nowMs: number;
  days: number;
}

/** Whether the recurring issue is in its quiet spell at the scene's moment. */
function inQuietSpell(scene: CrashScene): boolean {
  const ago = (scene.nowMs - scene.atMs) / (scene.days * DAY);
  return ago <= RECURRING_QUIET.fromAgo && ago >= RECURRING_QUIET.toAgo;
}

/** Whether the issue can happen in this scene (the releases that brought or fixed it, the quiet spell). */
export function issueEligible(issue: CrashIssue, scene: CrashScene): boolean {
  if (issue.platform !== scene.platform) return false;
  if (issue.fixedIn !== undefined && compareVersions(scene.appVersion, issue.fixedIn) >= 0) return false;
  if (issue.introducedIn !== undefined && compareVersions(scene.appVersion, issue.introducedIn) < 0)
    return false;
  return !(issue.recurs && inQuietSpell(scene));
}

/** Summed rates per (platform, version, quiet spell): every session asks, so each is worked out once. */
const chanceMemo = new Map<string, number>();

/** Probability that a session of this scene crashes: the rates of the issues that can happen in it. */
export function crashChance(scene: CrashScene): number {
  const key = `${scene.platform}|${scene.appVersion}|${inQuietSpell(scene)}`;
  let chance = chanceMemo.get(key);
  if (chance === undefined) {
    let per10k = 0;
    for (const issue of CRASH_ISSUES) if (issueEligible(issue, scene)) per10k += issue.rate;
    chance = per10k / 10_000;
    chanceMemo.set(key, chance);
  }
  return chance;
}

/** Which issue a crash of this scene is, in proportion to the rates of those that can happen. */
export function pickIssue(random: Random, scene: CrashScene): CrashIssue {
  const eligible = CRASH_ISSUES.filter((issue) => issueEligible(issue, scene));
  return random.weighted(eligible.map((issue) => [issue, issue.rate] as const));
}

/**
 * The signature as an SDK computes it, by the core's documented rule (first 16 hex of SHA-256
 * over error_type and the top three in-app function names, newline-joined) applied to the
 * symbolicated frames, so it equals what the core computes once the frames are symbolicated.
 */
export function sdkSignature(errorType: string, frames: readonly SourceFrame[]): string {
  const inApp = frames.filter((f) => f.in_app);
  const top = (inApp.length > 0 ? inApp : frames).slice(0, 3).map((f) => f.function);
  return createHash('sha256')
    .update([errorType, ...top].join('\n'), 'utf8')
    .digest('hex')
    .slice(0, 16);
}

export function buildCrash(
  issue: CrashIssue,
  eventId: string,
  scene: CrashScene,
  breadcrumbs: DemoBreadcrumb[],
  ids: { user_id: string; session_id: string; device_os: string },
): DemoCrash {
  const crash: DemoCrash = {
    event_id: eventId,
    timestamp: new Date(scene.atMs).toISOString(),
    error_type: issue.error_type,
    message: issue.message,
    frames: rawFramesOf(issue),
    breadcrumbs,
    platform: scene.platform,
    app_version: scene.appVersion,
    device_os: ids.device_os,
    user_id: ids.user_id,
    session_id: ids.session_id,
  };
  if (issue.signed) crash.signature = sdkSignature(issue.error_type, issue.frames);
  return crash;
}
