import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { boundedJson } from '../bounded-json';
import { ENTRY_KEYS, type LogEntry } from '../file-codec';

/** An entry as log.file_entries returns it. */
export interface EntryItem {
  line: number;
  ts: string;
  level: string;
  tag: string | null;
  message: string;
  fields: Record<string, unknown>;
}

/** ts, level and tag: the documented 256 characters (a ZonedDateTime with its zone id fits). */
export const ENTRY_TEXT_MAX = FIELD_LIMITS.id;

/**
 * Device log text is attacker-controlled and ends up in an AI's context: bounded and cleaned like
 * every other ingested text (docs/recall.md lists the caps). Extra fields: the first 64 in file
 * order; numbers, booleans and null kept (a number past the range of a double, Infinity after
 * parsing, comes back as the string "Infinity" or "-Infinity"); strings cleaned; anything nested
 * comes back as its JSON text, cut.
 */
export function sanitizeEntry(e: LogEntry): EntryItem {
  const fields: Record<string, unknown> = {};
  let seen = 0;
  for (const key in e.value) {
    if (!Object.hasOwn(e.value, key) || ENTRY_KEYS.has(key)) continue;
    if (++seen > FIELD_LIMITS.attributes) break;
    const k = sanitizeText(key, FIELD_LIMITS.attributeKey);
    if (k === '' || k === '__proto__') continue;
    fields[k] = fieldValue(e.value[key]);
  }
  return {
    line: e.line,
    ts: sanitizeText(e.ts, ENTRY_TEXT_MAX),
    level: sanitizeText(e.level, ENTRY_TEXT_MAX),
    tag: sanitizeOptional(e.tag, ENTRY_TEXT_MAX),
    message: sanitizeText(e.message, FIELD_LIMITS.message),
    fields,
  };
}

function fieldValue(value: unknown): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return sanitizeText(value, FIELD_LIMITS.attributeValue);
  return sanitizeText(boundedJson(value, FIELD_LIMITS.attributeValue), FIELD_LIMITS.attributeValue);
}
