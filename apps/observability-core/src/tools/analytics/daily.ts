const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One entry per UTC date from the date of `fromMs` to the date of `toMs`, oldest first, with the
 * counts found (keyed by 'YYYY-MM-DD') and 0 for the days without.
 */
export function zeroFilledDays(
  fromMs: number,
  toMs: number,
  counts: ReadonlyMap<string, number>,
): { date: string; count: number }[] {
  const out: { date: string; count: number }[] = [];
  for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day <= toMs; day += DAY_MS) {
    const date = new Date(day).toISOString().slice(0, 10);
    out.push({ date, count: counts.get(date) ?? 0 });
  }
  return out;
}
