// The trace list's filter form <-> trace.search's input. The form is a GET form, so a filtered list
// is a URL one can share; its field names are the tool's own, and only the fields filled in are
// sent: the tool's defaults stay the tool's. Values are checked by the gateway (one validation, at
// the boundary), except that numbers have to be numbers before they can be sent as JSON.

/** trace.search's filter fields, as they sit in the URL. */
export const TRACE_FILTER_FIELDS = [
  'user_id',
  'session_id',
  'status',
  'operation',
  'min_duration_ms',
  'max_duration_ms',
  'from',
  'to',
  'limit',
] as const;
export type TraceFilterField = (typeof TRACE_FILTER_FIELDS)[number];

export type TraceFilterValues = Partial<Record<TraceFilterField, string>>;

const NUMERIC: Partial<Record<TraceFilterField, string>> = {
  min_duration_ms: 'The minimum duration is a number of milliseconds.',
  max_duration_ms: 'The maximum duration is a number of milliseconds.',
  limit: 'The number of traces to show is a whole number.',
};

/** The window's bounds: a datetime-local input's value, read as UTC (the page says so). */
const TIME: Partial<Record<TraceFilterField, string>> = {
  from: 'The start of the window is a UTC time such as 2026-11-20T10:00.',
  to: 'The end of the window is a UTC time such as 2026-11-20T18:00.',
};
const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(?:\.\d{1,3})?)?$/;

/** A datetime-local value (no zone) as the ISO UTC time the tool takes; undefined if it is none. */
export function utcTime(value: string): string | undefined {
  const m = LOCAL_TIME.exec(value.trim());
  if (!m) return undefined;
  const iso = `${m[1]}${m[2] ?? ':00'}Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/** Traces shown per page, and how many more "Show more" asks for. */
export const TRACE_PAGE_SIZE = 50;
/** trace.search's largest limit. */
export const TRACE_LIMIT_MAX = 1000;

export type TraceSearchRequest =
  | { ok: true; values: TraceFilterValues; input: Record<string, string | number> }
  | { ok: false; values: TraceFilterValues; problem: string };

/** The form's values from a query string, and the tool input they make (or why they make none). */
export function traceSearchRequest(query: Record<string, unknown>): TraceSearchRequest {
  const values: TraceFilterValues = {};
  const input: Record<string, string | number> = {};
  let problem: string | undefined;
  for (const field of TRACE_FILTER_FIELDS) {
    const raw = query[field];
    // A repeated parameter (an array) is no value of this form: ignored, like an empty one.
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    values[field] = raw;
    const timeProblem = TIME[field];
    if (timeProblem !== undefined) {
      const time = utcTime(raw);
      if (time) input[field] = time;
      else problem ??= timeProblem;
      continue;
    }
    const numberProblem = NUMERIC[field];
    if (numberProblem === undefined) {
      input[field] = raw;
      continue;
    }
    const n = Number(raw.trim());
    if (Number.isFinite(n)) input[field] = n;
    else problem ??= numberProblem;
  }
  // The form is shown again with every value as typed, next to the problem.
  return problem === undefined ? { ok: true, values, input } : { ok: false, values, problem };
}

/** The limit that shows the next page's worth of traces as well, or undefined at the tool's maximum. */
export function nextLimit(current: number): number | undefined {
  return current >= TRACE_LIMIT_MAX ? undefined : Math.min(TRACE_LIMIT_MAX, current + TRACE_PAGE_SIZE);
}
