import type { BodyPath } from './json-path';
import {
  doubleAt,
  int64At,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  stringAt,
} from './otlp-shape';

// Values shared by the OTLP mappings (otlp-traces.ts, otlp-logs.ts, otlp-metrics.ts).
//
// An attribute value (AnyValue) is kept as text: a scalar as its text, an array or a map as the
// JSON of its elements, nested arrays and maps as nested JSON (written once, at the top: the
// work is linear in the value's size, where writing each level's JSON into its parent's escaped
// it again and doubled it at every level). Values nest at most MAX_VALUE_DEPTH levels, and a
// value's text is at most `maxChars`: beyond either, the request is refused naming the value.

/** How deep arrays and maps may nest inside one attribute value (or a log body). */
export const MAX_VALUE_DEPTH = 8;
/** An attribute value's text, as the batch format's attributes allow. */
export const MAX_ATTRIBUTE_TEXT = 4096;

/** A map key that is dropped wherever a map is built from a request (docs/ingest.md). */
const PROTO_KEY = '__proto__';

/** A plain value (string, array, object) of an AnyValue; undefined when it holds none. */
type Plain = string | Plain[] | { [key: string]: Plain };

class TooDeep {}

function plainOf(value: OtlpObject, depth: number, where: BodyPath, out: OtlpOutput): Plain | undefined {
  if (value.stringValue !== undefined && value.stringValue !== null)
    return stringAt(value, 'stringValue', where, out);
  if (value.boolValue !== undefined && value.boolValue !== null) {
    if (typeof value.boolValue === 'boolean') return String(value.boolValue);
    out.problem(where.child('boolValue'), 'expected a boolean');
    return undefined;
  }
  if (value.intValue !== undefined && value.intValue !== null) {
    const n = int64At(value, 'intValue', where, out);
    return n === undefined ? undefined : String(n);
  }
  if (value.doubleValue !== undefined && value.doubleValue !== null) {
    const n = doubleAt(value, 'doubleValue', where, out);
    return n === undefined ? undefined : String(n);
  }
  if (value.bytesValue !== undefined && value.bytesValue !== null)
    return stringAt(value, 'bytesValue', where, out);
  const array = objectAt(value, 'arrayValue', where, out);
  const map = array ? undefined : objectAt(value, 'kvlistValue', where, out);
  if (!array && !map) return undefined;
  if (depth > MAX_VALUE_DEPTH) {
    out.problem(where, `nested more than ${MAX_VALUE_DEPTH} levels deep (arrays and maps in values)`);
    throw new TooDeep();
  }
  if (array) {
    const arrayPath = where.child('arrayValue');
    const items: Plain[] = [];
    for (const [item, itemPath] of objectsOf(array, 'values', arrayPath, out)) {
      const plain = plainOf(item, depth + 1, itemPath, out);
      if (plain !== undefined) items.push(plain);
    }
    return items;
  }
  const mapPath = where.child('kvlistValue');
  const object: Record<string, Plain> = {};
  for (const [kv, kvPath] of objectsOf(map!, 'values', mapPath, out)) {
    const key = stringAt(kv, 'key', kvPath, out);
    const inner = objectAt(kv, 'value', kvPath, out);
    const plain = inner ? plainOf(inner, depth + 1, kvPath.child('value'), out) : undefined;
    // `__proto__` is dropped, as in every map (docs/ingest.md): assigned, it would set a prototype.
    if (key && key !== PROTO_KEY && plain !== undefined) object[key] = plain;
  }
  return object;
}

/**
 * The text of an AnyValue at `path` (an attribute's value, a log body), or undefined when it has
 * none or is refused (a problem says why).
 */
export function textOf(
  value: OtlpObject,
  path: BodyPath,
  out: OtlpOutput,
  maxChars: number,
): string | undefined {
  let plain: Plain | undefined;
  try {
    plain = plainOf(value, 1, path, out);
  } catch (err) {
    if (err instanceof TooDeep) return undefined;
    throw err;
  }
  if (plain === undefined) return undefined;
  const text = typeof plain === 'string' ? plain : JSON.stringify(plain);
  if (text.length > maxChars) {
    out.problem(path, `longer than ${maxChars} characters as text`);
    return undefined;
  }
  return text;
}

/** A KeyValue list (`attributes` of `parent`) as a map of texts. */
export function attributesAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [kv, kvPath] of objectsOf(parent, key, path, out)) {
    const name = stringAt(kv, 'key', kvPath, out);
    const value = objectAt(kv, 'value', kvPath, out);
    if (!name || name === PROTO_KEY || !value) continue;
    const text = textOf(value, kvPath.child('value'), out, MAX_ATTRIBUTE_TEXT);
    if (text !== undefined) attributes[name] = text;
  }
  return attributes;
}

/** A resource's attributes (`resource.attributes` of `parent`). */
export function resourceAttributesAt(
  parent: OtlpObject,
  path: BodyPath,
  out: OtlpOutput,
): Record<string, string> {
  const resource = objectAt(parent, 'resource', path, out);
  return resource ? attributesAt(resource, 'attributes', path.child('resource'), out) : {};
}

/** Nanoseconds since the epoch as epoch milliseconds (what the ingest format takes). */
export const msOf = (nanos: bigint | undefined) =>
  nanos === undefined ? undefined : Number(nanos / 1_000_000n);

/** The first of `keys` present in `attrs`. */
export const first = (attrs: Record<string, string>, keys: string[]) =>
  keys.map((k) => attrs[k]).find((v) => v);

/** Attributes that carry meaning of their own in every mapping. */
export const USER_KEYS = ['enduser.id', 'user.id'];
export const SESSION_KEYS = ['session.id'];

/** Whether an object has a key (without listing them all). */
export function hasAny(object: object): boolean {
  for (const _ in object) return true;
  return false;
}
