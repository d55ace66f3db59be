import { CLAIM_FORM_OF, type Claim } from './grammar';

// Words that point at a form, for a claim the grammar cannot read: the answer then shows the forms
// the caller most likely meant. Deterministic on purpose (no LLM): the same text, the same forms.
const HINTS: Readonly<Record<Claim['kind'], readonly string[]>> = {
  crash_recurrence: [
    'crash',
    'crashes',
    'recur',
    'recurred',
    'recurs',
    'recurrence',
    'fixed',
    'fix',
    'regressed',
    'regression',
    'issue',
    'signature',
    'again',
    'back',
  ],
  operation_latency: [
    'latency',
    'slow',
    'slower',
    'fast',
    'faster',
    'p50',
    'p99',
    'p95',
    'ms',
    'endpoint',
    'operation',
    'span',
    'response',
    'duration',
    'takes',
  ],
  operation_error_rate: [
    'error',
    'errors',
    'failing',
    'fails',
    'failure',
    'failures',
    'rate',
    '5xx',
    'operation',
    'endpoint',
  ],
  metric_percentile: [
    'metric',
    'startup',
    'start',
    'memory',
    'fps',
    'frame',
    'app_start_ms',
    'memory_mb',
    'p50',
    'p95',
    'p99',
    'performance',
  ],
  release_crash_free: [
    'crash-free',
    'crash',
    'free',
    'stable',
    'stability',
    'release',
    'version',
    'sessions',
  ],
  release_grade: ['grade', 'score', 'health', 'healthy', 'release', 'version', 'quality'],
  funnel_conversion: [
    'conversion',
    'convert',
    'converts',
    'converted',
    'funnel',
    'step',
    'checkout',
    'purchase',
    'signup',
    'cart',
  ],
  user_crashed: ['user', 'customer', 'crashed', 'crash', 'session', 'someone'],
};

/**
 * Up to `n` claim forms nearest to a text the grammar did not read, by how many of its words point
 * at each form (ties in grammar order); every form when no word points anywhere.
 */
export function closestClaimForms(text: string, n = 3): string[] {
  const words = new Set(text.toLowerCase().match(/[a-z0-9_%-]+/g) ?? []);
  const scored = (Object.keys(HINTS) as Claim['kind'][])
    .map((kind, order) => ({ kind, order, score: HINTS[kind].filter((w) => words.has(w)).length }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  if (scored.length === 0) return Object.values(CLAIM_FORM_OF);
  return scored.slice(0, n).map((s) => CLAIM_FORM_OF[s.kind]);
}
