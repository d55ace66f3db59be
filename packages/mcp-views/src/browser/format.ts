// How numbers are written. A view never derives a number from others (a rate from two counts, a
// share from a total): it writes the tool's own field, so the view and the text answer agree.

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

/** Any number as the tool gave it, digits grouped: 12,345 or 1,234.5678. */
export function num(value: number): string {
  return grouped.format(value);
}

/** A tool's 0..1 ratio as a percentage with one decimal; null (no denominator) as a dash. */
export function pct(value: number | null): string {
  return value === null ? '–' : `${(value * 100).toFixed(1)}%`;
}

export function ms(value: number | null): string {
  return value === null ? '–' : `${num(value)} ms`;
}

/** Exact value for data-value attributes: what tests and assistive tooling read back. */
export function exact(value: number | null): string {
  return value === null ? '' : String(value);
}
