import { MAX_ATTRIBUTES, TEXT_MAX } from '../field-rules';
import type { BodyPath } from '../json/json-path';
import { checkLength } from './otlp-fields';
import {
  doubleAt,
  int64At,
  isObject,
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
// value's text is at most `maxChars`: beyond either, the request is refused naming the field that
// is too deep or too long (a string inside the value when it alone is, else the value's field).

/** How deep arrays and maps may nest inside one attribute value (or a log body). */
export const MAX_VALUE_DEPTH = 8;

/** A map key that is dropped wherever a map is built from a request (docs/ingest.md). */
const PROTO_KEY = '__proto__';

/** The fields of an AnyValue, in the order they are looked at (the first one set is the value). */
const VALUE_FIELDS = [
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'bytesValue',
  'arrayValue',
  'kvlistValue',
] as const;

/** The field an AnyValue holds its value in (`stringValue`...), or undefined for none. */
function valueFieldOf(value: OtlpObject): (typeof VALUE_FIELDS)[number] | undefined {
  return VALUE_FIELDS.find((field) => value[field] !== undefined && value[field] !== null);
}

/** A plain value (string, array, object) of an AnyValue; undefined when it holds none. */
type Plain = string | Plain[] | { [key: string]: Plain };

class TooDeep {}

/** A string inside a value (a scalar, or a map's key), refused naming it when it alone is too long. */
function fits(text: string | undefined, maxChars: number, where: BodyPath, out: OtlpOutput): boolean {
  return text === undefined || checkLength(text, maxChars, where, out);
}

function plainOf(
  value: OtlpObject,
  depth: number,
  where: BodyPath,
  out: OtlpOutput,
  maxChars: number,
): Plain | undefined {
  if (value.stringValue !== undefined && value.stringValue !== null) {
    const text = stringAt(value, 'stringValue', where, out);
    return fits(text, maxChars, where.child('stringValue'), out) ? text : undefined;
  }
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
  if (value.bytesValue !== undefined && value.bytesValue !== null) {
    const text = stringAt(value, 'bytesValue', where, out);
    return fits(text, maxChars, where.child('bytesValue'), out) ? text : undefined;
  }
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
      const plain = plainOf(item, depth + 1, itemPath, out, maxChars);
      if (plain !== undefined) items.push(plain);
    }
    return items;
  }
  const mapPath = where.child('kvlistValue');
  const object: Record<string, Plain> = {};
  for (const [kv, kvPath] of objectsOf(map!, 'values', mapPath, out)) {
    const key = stringAt(kv, 'key', kvPath, out);
    if (!fits(key, maxChars, kvPath.child('key'), out)) continue;
    const inner = objectAt(kv, 'value', kvPath, out);
    const plain = inner ? plainOf(inner, depth + 1, kvPath.child('value'), out, maxChars) : undefined;
    // `__proto__` is dropped, as in every map (docs/ingest.md): assigned, it would set a prototype.
    if (key && key !== PROTO_KEY && plain !== undefined) object[key] = plain;
  }
  return object;
}

/**
 * The text of an AnyValue at `path` (an attribute's value, a log body), or undefined when it has
 * none or is refused (a problem says why and names the field: `value.stringValue` for a string
 * too long, `value.arrayValue` for an array whose JSON is).
 */
export function textOf(
  value: OtlpObject,
  path: BodyPath,
  out: OtlpOutput,
  maxChars: number,
): string | undefined {
  const before = out.problemCount;
  let plain: Plain | undefined;
  try {
    plain = plainOf(value, 1, path, out, maxChars);
  } catch (err) {
    if (err instanceof TooDeep) return undefined;
    throw err;
  }
  if (plain === undefined || out.problemCount > before) return undefined;
  if (typeof plain === 'string') return plain;
  const text = JSON.stringify(plain);
  const field = valueFieldOf(value);
  return checkLength(text, maxChars, field ? path.child(field) : path, out, ' as JSON text')
    ? text
    : undefined;
}

/**
 * A KeyValue list (`key` of `parent`) as a map of texts. `stored`: the attributes become a
 * record's, so keys must fit the record's (1..200 characters; an empty key is left out, as is
 * `__proto__`); a resource's attributes are read for a few known keys only.
 */
export function attributesAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
  stored = true,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [kv, kvPath] of objectsOf(parent, key, path, out)) {
    const name = stringAt(kv, 'key', kvPath, out);
    const value = objectAt(kv, 'value', kvPath, out);
    if (!name || name === PROTO_KEY || !value) continue;
    if (stored && !checkLength(name, TEXT_MAX.attributeKey, kvPath.child('key'), out)) continue;
    const text = textOf(value, kvPath.child('value'), out, TEXT_MAX.attributeValue);
    if (text !== undefined) attributes[name] = text;
  }
  return attributes;
}

/** A problem when a record's `attributes` (those of `path`, plus `added` of its own) are too many. */
export function checkAttributeCount(
  attributes: Record<string, string>,
  path: BodyPath,
  out: OtlpOutput,
  added: string[] = [],
): void {
  let count = 0;
  for (const _ in attributes) count++;
  if (count <= MAX_ATTRIBUTES) return;
  const besides = added.length > 0 ? `, counting ${added.join(' and ')}` : '';
  out.problem(path, `more than ${MAX_ATTRIBUTES} attributes (${count}${besides})`);
}

/**
 * Where the attribute `name` of the KeyValue list `parent[key]` holds its value (the last one of
 * that name, as it is kept): `attributes[2].value.stringValue`. Looked up only for a problem.
 */
export function attributePath(parent: OtlpObject, key: string, path: BodyPath, name: string): BodyPath {
  const list = parent[key];
  let found = -1;
  if (Array.isArray(list))
    for (let i = 0; i < list.length; i++) if (isObject(list[i]) && list[i].key === name) found = i;
  if (found < 0) return path.child(key);
  const valuePath = path.child(key).child(found).child('value');
  const value = (list as OtlpObject[])[found]!.value;
  const field = isObject(value) ? valueFieldOf(value) : undefined;
  return field ? valuePath.child(field) : valuePath;
}

/** A resource and its attributes (`resource.attributes` of `parent`), read for its known keys. */
export function resourceOf(
  parent: OtlpObject,
  path: BodyPath,
  out: OtlpOutput,
): { attributes: Record<string, string>; at: (name: string) => BodyPath } {
  const resource = objectAt(parent, 'resource', path, out);
  const resourcePath = path.child('resource');
  return {
    attributes: resource ? attributesAt(resource, 'attributes', resourcePath, out, false) : {},
    at: (name) => (resource ? attributePath(resource, 'attributes', resourcePath, name) : resourcePath),
  };
}

/** The first of `keys` present in `attrs`, with the key it came from. */
export function firstOf(attrs: Record<string, string>, keys: string[]): [string, string] | undefined {
  for (const key of keys) {
    const value = attrs[key];
    if (value) return [key, value];
  }
  return undefined;
}

/** The first of `keys` present in `attrs`. */
export const first = (attrs: Record<string, string>, keys: string[]) => firstOf(attrs, keys)?.[1];

/**
 * An id the record takes from an attribute (`user_id` from `enduser.id`): at most 200 characters,
 * else a problem naming the attribute's value in `parent[key]`.
 */
export function idFromAttributes(
  attrs: Record<string, string>,
  keys: string[],
  parent: OtlpObject,
  path: BodyPath,
  out: OtlpOutput,
): string | undefined {
  const found = firstOf(attrs, keys);
  if (!found) return undefined;
  const [name, value] = found;
  // An id is checked as the batch checks one (trimmed: not blank, at most TEXT_MAX.id), here, so
  // the 400 names the attribute's value rather than the record's attributes as a whole.
  const trimmed = value.trim();
  if (trimmed !== '' && trimmed.length <= TEXT_MAX.id) return value;
  out.problem(
    attributePath(parent, 'attributes', path, name),
    trimmed === ''
      ? `blank (${name} is kept as an id, which needs a character other than spaces)`
      : `longer than ${TEXT_MAX.id} characters (${name} is kept as an id)`,
  );
  return undefined;
}

/** Attributes that carry meaning of their own in every mapping. */
export const USER_KEYS = ['enduser.id', 'user.id'];
export const SESSION_KEYS = ['session.id'];

/** Whether an object has a key (without listing them all). */
export function hasAny(object: object): boolean {
  for (const _ in object) return true;
  return false;
}
