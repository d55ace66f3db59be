import { COMPARISON_WORDS, count, gradeHolds, holds, num, pct } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, type Finding, inconclusive, type Window } from '../finding';

type ReleaseClaim = ClaimOf<'release_crash_free' | 'release_grade'>;
interface ReleaseRow {
  version: string;
  found: boolean;
  sessions: number;
  crash_free_session_rate: number | null;
  score: number | null;
  grade: 'A' | 'B' | 'C' | 'D' | 'F' | null;
}

export async function release(claim: ReleaseClaim, evidence: Evidence): Promise<Finding> {
  const a = await evidence.ask<{ window: Window; releases: ReleaseRow[] }>(
    'release.health',
    { version: claim.version, days: claim.days },
    (answer) => {
      const r = answer.releases[0];
      if (!r?.found)
        return `No session or metric sample of version ${claim.version} from ${answer.window.from} to ${answer.window.to}.`;
      const rate =
        r.crash_free_session_rate === null
          ? 'no crash-free rate'
          : `crash-free sessions ${pct(r.crash_free_session_rate)}`;
      const grade = r.grade === null ? 'no grade' : `score ${num(r.score!)}, grade ${r.grade}`;
      return `Version ${claim.version}: ${count(r.sessions, 'session')}, ${rate}, ${grade}.`;
    },
  );
  const r = a.releases[0];
  if (!r?.found) return inconclusive(`Version ${claim.version} has no data in the last ${claim.days} days.`);
  if (claim.kind === 'release_crash_free') {
    if (r.crash_free_session_rate === null)
      return inconclusive(`Version ${claim.version} has no sessions in the last ${claim.days} days.`);
    const ok = holds(r.crash_free_session_rate, claim.comparison, claim.rate);
    return decided(
      ok,
      `Version ${claim.version} has ${pct(r.crash_free_session_rate)} crash-free sessions, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${pct(claim.rate)}.`,
    );
  }
  if (r.grade === null)
    return inconclusive(`Version ${claim.version} has no data to grade in the last ${claim.days} days.`);
  const ok = gradeHolds(r.grade, claim.comparison, claim.grade);
  return decided(
    ok,
    `Version ${claim.version} grades ${r.grade}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${claim.grade}.`,
  );
}
