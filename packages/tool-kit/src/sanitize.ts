// Text that came from ingest is attacker-controlled and may end up in an AI's context. It is
// returned as data (never interpreted), bounded in length, and stripped of characters that hide
// or reorder text on screen: zero-width and bidirectional controls, the BOM, and C0 controls
// other than newline and tab (plus DEL). Lone surrogates become U+FFFD (toWellFormed), so what
// goes out is always valid Unicode, whatever a table holds.

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;

/** Node's String.prototype.isWellFormed / toWellFormed (ES2024; the compiler's lib is older). */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * `text` with every lone surrogate (half of a pair without its other half) replaced by U+FFFD, as
 * a UTF-8 decoder replaces invalid bytes: such a string cannot be written as UTF-8, so the store
 * refuses it and JSON encoders escape it into text that others refuse. Well-formed text (nearly
 * all) is returned as it is, after a check that costs nothing for one-byte strings.
 */
export function toWellFormed(text: string): string {
  const s = text as unknown as WellFormedString;
  return s.isWellFormed() ? text : s.toWellFormed();
}

export const TRUNCATION_MARK = '…[truncated]';

export const FIELD_LIMITS = {
  message: 8192,
  id: 256,
  attributeKey: 200,
  attributeValue: 1024,
  attributes: 64,
} as const;

/** At most `maxChars` UTF-16 units, never splitting a surrogate pair; marked when cut. */
export function sanitizeText(value: string, maxChars: number): string {
  const clean = toWellFormed(value).replace(INVISIBLE, '');
  if (clean.length <= maxChars) return clean;
  let cut = Math.max(0, maxChars - TRUNCATION_MARK.length);
  const last = clean.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return clean.slice(0, cut) + TRUNCATION_MARK;
}

/** '' (how absent values are stored) becomes null. */
export function sanitizeOptional(
  value: string | null | undefined,
  maxChars: number = FIELD_LIMITS.id,
): string | null {
  if (value === null || value === undefined || value === '') return null;
  return sanitizeText(value, maxChars);
}

export function sanitizeAttributes(
  attributes: Record<string, string> | null | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!attributes) return out;
  for (const [key, value] of Object.entries(attributes).slice(0, FIELD_LIMITS.attributes)) {
    const k = sanitizeText(key, FIELD_LIMITS.attributeKey);
    if (k === '' || k === '__proto__') continue;
    out[k] = sanitizeText(String(value), FIELD_LIMITS.attributeValue);
  }
  return out;
}
