import type { Claim } from '../grammar/grammar';

export type Verdict = 'supported' | 'refuted' | 'inconclusive';
export interface Finding {
  verdict: Verdict;
  reason: string;
}

export const decided = (ok: boolean, reason: string): Finding => ({
  verdict: ok ? 'supported' : 'refuted',
  reason,
});
export const inconclusive = (reason: string): Finding => ({ verdict: 'inconclusive', reason });

/** The most events or items a single evidence call reads; the checker says so when that is not all. */
export const EVIDENCE_LIMIT = 1000;

/** The time window a windowed tool's answer states. */
export interface Window {
  from: string;
  to: string;
}

export type ClaimOf<K extends Claim['kind']> = Extract<Claim, { kind: K }>;
