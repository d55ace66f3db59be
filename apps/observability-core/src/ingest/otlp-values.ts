// Values shared by the OTLP/HTTP JSON mappings (otlp-traces.ts, otlp-logs.ts).

export type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
export type KeyValue = { key?: string; value?: AnyValue };

/** An attribute value as text; arrays and maps as their JSON. */
export function text(value: AnyValue | undefined): string | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return String(value.boolValue);
  if (value.intValue !== undefined) return String(value.intValue);
  if (value.doubleValue !== undefined) return String(value.doubleValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return JSON.stringify((value.arrayValue.values ?? []).map(text));
  if (value.kvlistValue) return JSON.stringify(attributesOf(value.kvlistValue.values));
  return undefined;
}

export function attributesOf(list: KeyValue[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) {
    const value = text(kv.value);
    if (kv.key && value !== undefined) out[kv.key] = value;
  }
  return out;
}

/**
 * Nanoseconds since the epoch (a decimal string in OTLP JSON) as a BigInt, or undefined. The
 * mappings hand on epoch milliseconds (which the ingest format takes as they are), not ISO text
 * the validation would parse back.
 */
export function nanos(value: string | number | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  try {
    return BigInt(value);
  } catch {
    return undefined;
  }
}

/** The first of `keys` present in `attrs`. */
export const first = (attrs: Record<string, string>, keys: string[]) =>
  keys.map((k) => attrs[k]).find((v) => v);

/** Attributes that carry meaning of their own in both mappings. */
export const USER_KEYS = ['enduser.id', 'user.id'];
export const SESSION_KEYS = ['session.id'];

/** Whether an object has a key (without listing them all). */
export function hasAny(object: object): boolean {
  for (const _ in object) return true;
  return false;
}
