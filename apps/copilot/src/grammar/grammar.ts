// The claims and expectations the deterministic checker understands (docs/verify.md). A claim
// outside these forms is never guessed at: the checker answers `inconclusive` with the closest
// supported forms. Matching is case-insensitive; names, versions, ids and signatures keep their case.

export type Comparison = 'above' | 'below' | 'at_least' | 'at_most';

export type Claim =
  | {
      kind: 'crash_recurrence';
      signature: string;
      recurred: boolean;
      since: { version: string } | { date: string };
    }
  | {
      kind: 'operation_latency';
      operation: string;
      percentile: 'p50' | 'p99';
      comparison: Comparison;
      ms: number;
      days: number;
    }
  | { kind: 'operation_error_rate'; operation: string; comparison: Comparison; rate: number; days: number }
  | {
      kind: 'metric_percentile';
      metric: string;
      percentile: 'p50' | 'p95' | 'p99';
      comparison: Comparison;
      value: number;
      days: number;
    }
  | { kind: 'release_crash_free'; version: string; comparison: Comparison; rate: number; days: number }
  | { kind: 'release_grade'; version: string; comparison: 'at_least' | 'at_most'; grade: Grade; days: number }
  | {
      kind: 'funnel_conversion';
      from: string;
      to: string;
      comparison: Comparison;
      rate: number;
      days: number;
    }
  | { kind: 'user_crashed'; user_id: string; session_id: string | null; crashed: boolean };

export type Expectation =
  | { kind: 'no_span_over'; ms: number }
  | { kind: 'no_error_span' }
  | { kind: 'calls_before'; first: string; later: string };

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

/** Each form, as the tool descriptions, the docs and the inconclusive answers write it. */
export const CLAIM_FORM_OF: Readonly<Record<Claim['kind'], string>> = {
  crash_recurrence: 'crash <signature> (recurred | did not recur) after (version <v> | <YYYY-MM-DD>)',
  operation_latency:
    '(p50 | p99) of operation <name> is (above | below | at least | at most) <n> ms [over <d> days]',
  operation_error_rate:
    'error rate of operation <name> is (above | below | at least | at most) <x>% [over <d> days]',
  metric_percentile:
    '(p50 | p95 | p99) of metric <name> is (above | below | at least | at most) <n> [over <d> days]',
  release_crash_free:
    'release <v> crash-free rate is (above | below | at least | at most) <x>% [over <d> days]',
  release_grade: 'release <v> grade is (at least | at most) <A-F> [over <d> days]',
  funnel_conversion:
    'conversion from <event a> to <event b> is (above | below | at least | at most) <x>% [over <d> days]',
  user_crashed: 'user <id> (crashed | did not crash) [in session <id>]',
};

export const CLAIM_FORMS: readonly string[] = Object.values(CLAIM_FORM_OF);

/** What every form shares, said once. */
export const GRAMMAR_NOTE =
  'Case does not matter; a name with spaces goes in quotes ("POST /api/v1/checkout"); [over <d> days] defaults to 14.';

export const EXPECTATION_FORMS: readonly string[] = [
  'no span over <n> ms',
  'no error span',
  'calls service <a> before <b>',
];

const DEFAULT_DAYS = 14;
const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const COMPARISON = '(above|below|at least|at most|over|under|greater than|less than)';
const DAYS = String.raw`(?:\s+over\s+(?:the\s+last\s+)?(\d{1,3})\s+days?)?`;
const NAME = String.raw`("[^"]+"|'[^']+'|\S+)`;

function comparisonOf(word: string): Comparison {
  const w = word.toLowerCase();
  if (w === 'above' || w === 'over' || w === 'greater than') return 'above';
  if (w === 'below' || w === 'under' || w === 'less than') return 'below';
  return w === 'at least' ? 'at_least' : 'at_most';
}

const unquote = (s: string) => (/^(["']).*\1$/.test(s) ? s.slice(1, -1) : s);
const days = (d: string | undefined) => (d === undefined ? DEFAULT_DAYS : Number(d));
const percent = (x: string) => Number(x) / 100;

type Rule = [RegExp, (m: RegExpMatchArray) => Claim | undefined];

const rules: Rule[] = [
  [
    /^crash\s+([0-9a-f]{16})\s+(recurred|did not recur|has not recurred)\s+(?:after|since)\s+(?:version\s+(\S+)|(\d{4}-\d{2}-\d{2}))$/i,
    (m) => ({
      kind: 'crash_recurrence',
      signature: m[1]!.toLowerCase(),
      recurred: m[2]!.toLowerCase() === 'recurred',
      since: m[3] !== undefined ? { version: m[3] } : { date: m[4]! },
    }),
  ],
  [
    new RegExp(
      String.raw`^(p50|p99)\s+(?:latency\s+)?of\s+operation\s+${NAME}\s+is\s+${COMPARISON}\s+${NUMBER}\s*ms${DAYS}$`,
      'i',
    ),
    (m) => ({
      kind: 'operation_latency',
      percentile: m[1]!.toLowerCase() as 'p50' | 'p99',
      operation: unquote(m[2]!),
      comparison: comparisonOf(m[3]!),
      ms: Number(m[4]),
      days: days(m[5]),
    }),
  ],
  [
    new RegExp(
      String.raw`^error rate of operation\s+${NAME}\s+is\s+${COMPARISON}\s+${NUMBER}\s*%${DAYS}$`,
      'i',
    ),
    (m) => ({
      kind: 'operation_error_rate',
      operation: unquote(m[1]!),
      comparison: comparisonOf(m[2]!),
      rate: percent(m[3]!),
      days: days(m[4]),
    }),
  ],
  [
    new RegExp(
      String.raw`^(p50|p95|p99)\s+of\s+metric\s+${NAME}\s+is\s+${COMPARISON}\s+${NUMBER}\s*(?:ms|mb|fps)?${DAYS}$`,
      'i',
    ),
    (m) => ({
      kind: 'metric_percentile',
      percentile: m[1]!.toLowerCase() as 'p50' | 'p95' | 'p99',
      metric: unquote(m[2]!),
      comparison: comparisonOf(m[3]!),
      value: Number(m[4]),
      days: days(m[5]),
    }),
  ],
  [
    new RegExp(
      String.raw`^release\s+(\S+)\s+crash-free(?: session)? rate is\s+${COMPARISON}\s+${NUMBER}\s*%${DAYS}$`,
      'i',
    ),
    (m) => ({
      kind: 'release_crash_free',
      version: m[1]!,
      comparison: comparisonOf(m[2]!),
      rate: percent(m[3]!),
      days: days(m[4]),
    }),
  ],
  [
    new RegExp(String.raw`^release\s+(\S+)\s+grade is\s+(at least|at most)\s+([abcdf])${DAYS}$`, 'i'),
    (m) => ({
      kind: 'release_grade',
      version: m[1]!,
      comparison: comparisonOf(m[2]!) as 'at_least' | 'at_most',
      grade: m[3]!.toUpperCase() as Grade,
      days: days(m[4]),
    }),
  ],
  [
    new RegExp(
      String.raw`^conversion from\s+${NAME}\s+to\s+${NAME}\s+is\s+${COMPARISON}\s+${NUMBER}\s*%${DAYS}$`,
      'i',
    ),
    (m) => ({
      kind: 'funnel_conversion',
      from: unquote(m[1]!),
      to: unquote(m[2]!),
      comparison: comparisonOf(m[3]!),
      rate: percent(m[4]!),
      days: days(m[5]),
    }),
  ],
  [
    new RegExp(String.raw`^user\s+${NAME}\s+(crashed|did not crash)(?:\s+in\s+session\s+${NAME})?$`, 'i'),
    (m) => ({
      kind: 'user_crashed',
      user_id: unquote(m[1]!),
      crashed: m[2]!.toLowerCase() === 'crashed',
      session_id: m[3] === undefined ? null : unquote(m[3]),
    }),
  ],
];

const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').replace(/[.!]$/, '');

/** The claim a text states, or undefined when it is not one of CLAIM_FORMS. */
export function parseClaim(text: string): Claim | undefined {
  const t = normalize(text);
  for (const [pattern, build] of rules) {
    const m = t.match(pattern);
    if (m) return build(m);
  }
  return undefined;
}

/** The parts of an expectation text: separated by ";" or " and ", trimmed, empty ones dropped. */
export function expectationParts(text: string): string[] {
  return normalize(text)
    .split(/\s*;\s*|\s+and\s+/i)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * Expectations separated by ";" or " and ": every part must be one of EXPECTATION_FORMS, else the
 * parts that are not come back as `unparsed`.
 */
export function parseExpectations(text: string): { expectations: Expectation[]; unparsed: string[] } {
  const expectations: Expectation[] = [];
  const unparsed: string[] = [];
  for (const part of expectationParts(text)) {
    let m = part.match(/^no span (?:over|longer than|above) (\d+(?:\.\d+)?) ?ms$/i);
    if (m) {
      expectations.push({ kind: 'no_span_over', ms: Number(m[1]) });
      continue;
    }
    if (/^no error spans?$/i.test(part)) {
      expectations.push({ kind: 'no_error_span' });
      continue;
    }
    m = part.match(new RegExp(`^calls service ${NAME} before (?:service )?${NAME}$`, 'i'));
    if (m) {
      expectations.push({ kind: 'calls_before', first: unquote(m[1]!), later: unquote(m[2]!) });
      continue;
    }
    unparsed.push(part);
  }
  return { expectations, unparsed };
}
