import { FIELD_LIMITS, sanitizeText, TRUNCATION_MARK } from '@svc/tool-kit';

// Event properties are attacker-controlled JSON. They come back parsed (an object, never text to
// interpret) and bounded: every string cleaned and capped, every object and array capped in
// entries, nesting capped in depth. What was cut is marked, so a reader knows data is missing.

export const PROPERTY_LIMITS = {
  key: FIELD_LIMITS.attributeKey,
  string: FIELD_LIMITS.attributeValue,
  /** Entries per object or array. */
  entries: 64,
  depth: 8,
} as const;

/** The stored properties text as a cleaned object; anything but a JSON object gives {}. */
export function parseProperties(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  return cleanObject(parsed as Record<string, unknown>, 1);
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return sanitizeText(value, PROPERTY_LIMITS.string);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= PROPERTY_LIMITS.depth) return TRUNCATION_MARK;
  if (Array.isArray(value)) {
    const out = value.slice(0, PROPERTY_LIMITS.entries).map((v) => cleanValue(v, depth + 1));
    if (value.length > PROPERTY_LIMITS.entries) out.push(TRUNCATION_MARK);
    return out;
  }
  if (typeof value === 'object') return cleanObject(value as Record<string, unknown>, depth + 1);
  return null;
}

function cleanObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [key, v] of entries.slice(0, PROPERTY_LIMITS.entries)) {
    const k = sanitizeText(key, PROPERTY_LIMITS.key);
    // A '__proto__' key would set the prototype instead of a property.
    if (k === '' || k === '__proto__') continue;
    out[k] = cleanValue(v, depth);
  }
  if (entries.length > PROPERTY_LIMITS.entries)
    out[TRUNCATION_MARK] = entries.length - PROPERTY_LIMITS.entries;
  return out;
}
