import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import type { LogEntry } from '../file-codec';

/**
 * Device log text is attacker-controlled and ends up in an AI's context: bounded and cleaned like
 * every other ingested text. Extra fields keep numbers, booleans and null; strings are cleaned and
 * anything nested comes back as its JSON text, cleaned.
 */
export function sanitizeEntry(e: LogEntry): LogEntry {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e.fields).slice(0, FIELD_LIMITS.attributes)) {
    const k = sanitizeText(key, FIELD_LIMITS.attributeKey);
    if (k === '' || k === '__proto__') continue;
    fields[k] =
      value === null || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : sanitizeText(
            typeof value === 'string' ? value : JSON.stringify(value),
            FIELD_LIMITS.attributeValue,
          );
  }
  return {
    line: e.line,
    ts: sanitizeText(e.ts, 64),
    level: sanitizeText(e.level, 32),
    tag: sanitizeOptional(e.tag),
    message: sanitizeText(e.message, FIELD_LIMITS.message),
    fields,
  };
}
