// The tool runner's form, generated from a tool's input JSON schema (as the gateway's /openapi.json
// publishes it), and the way back: submitted form values -> the tool's input. Pure, no markup: the
// page renders the model (pages/schema-fields.tsx).
//
// Only filled fields go into the input, so everything left empty takes the tool's default and the
// gateway (the one validation boundary) names any problem. This module converts types only (text ->
// number, checkbox -> boolean, lines -> array); bounds and patterns are the gateway's to check.

export type JsonSchema = Record<string, unknown>;

interface FieldBase {
  /** The form control's name: the property path, dot-joined, dots and `%` in names escaped. */
  name: string;
  /** The property of the input object this field fills. */
  key: string;
  required: boolean;
  description?: string;
  /** The schema's default as text: a hint, never sent (an empty field takes the default anyway). */
  placeholder?: string;
}

export interface Choice {
  /** What the form sends and shows. */
  label: string;
  /** The enum value it stands for (a string, or a number or boolean of a non-string enum). */
  value: unknown;
}

export type FormField =
  | (FieldBase & {
      kind: 'text';
      /** Long text (a maxLength of 1000 or more): a textarea. */
      multiline: boolean;
      /** `date` gets a date picker; anything else is free text. */
      format?: string;
      minLength?: number;
      maxLength?: number;
    })
  | (FieldBase & { kind: 'select'; choices: Choice[] })
  | (FieldBase & { kind: 'number'; integer: boolean; min?: number; max?: number })
  | (FieldBase & { kind: 'checkbox'; checkedByDefault: boolean })
  | (FieldBase & {
      kind: 'lines';
      /** What each line is converted to. */
      items: 'string' | 'integer' | 'number';
      minItems?: number;
      maxItems?: number;
    })
  | (FieldBase & { kind: 'multiselect'; choices: Choice[]; minItems?: number; maxItems?: number })
  | (FieldBase & { kind: 'fieldset'; fields: FormField[] })
  | (FieldBase & { kind: 'json' });

export type FieldKind = FormField['kind'];

/** Form values as express's urlencoded parser gives them: a repeated name is an array. */
export type FormValues = Record<string, string | string[] | undefined>;

export interface FieldError {
  /** The control's name (for aria-invalid and the message's link). */
  name: string;
  /** The property path as people read it, e.g. `filter.min_duration_ms`. */
  path: string;
  message: string;
}

/** The prefix of every generated control's name: nothing else on the page (`_csrf`, `mode`) can clash. */
export const FIELD_PREFIX = 'in.';

/** Refs followed in a row before a schema is taken as unknown (a cycle, or a chain of aliases). */
const MAX_REF_HOPS = 32;
/** Nesting shown as fieldsets; deeper objects are edited as JSON. */
const MAX_DEPTH = 6;

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
const numberOr = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const escapeSegment = (key: string) => key.replace(/%/g, '%25').replace(/\./g, '%2E');

/** The node a local `$ref` (`#/a/b`, JSON pointer) points to in `root`; undefined for others. */
function pointerTarget(ref: string, root: unknown): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * A schema with its local `$ref`s followed (keywords beside a `$ref` win, as OpenAPI 3.1 allows,
 * so a property's own description stays). An unresolvable or cyclic ref is an empty schema: a
 * JSON field.
 */
export function resolveRef(schema: unknown, root: unknown): JsonSchema {
  let node: JsonSchema = isObject(schema) ? schema : {};
  for (let hops = 0; typeof node.$ref === 'string'; hops++) {
    const target = hops < MAX_REF_HOPS ? pointerTarget(node.$ref, root) : undefined;
    const { $ref: _ref, ...siblings } = node;
    if (!isObject(target)) return siblings;
    node = { ...target, ...siblings };
  }
  return node;
}

/** The one non-null type of a schema, looking through `anyOf`/`oneOf` with null and one-member `allOf`. */
function simplify(schema: JsonSchema, root: unknown): JsonSchema {
  const own = { ...schema };
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members = own[keyword];
    if (!Array.isArray(members)) continue;
    const resolved = members.map((m) => resolveRef(m, root)).filter((m) => m.type !== 'null');
    const { [keyword]: _members, ...rest } = own;
    if (resolved.length === 1) return simplify({ ...resolved[0], ...rest }, root);
    // Alternatives that are all text (a date or a date-time, say) are one text field.
    if (keyword !== 'allOf' && resolved.length > 0 && resolved.every((m) => m.type === 'string' && !m.enum)) {
      return { ...rest, type: 'string' };
    }
    return own;
  }
  if (Array.isArray(own.type)) {
    const types = own.type.filter((t) => t !== 'null');
    if (types.length === 1) return { ...own, type: types[0] };
  }
  return own;
}

function choicesOf(schema: JsonSchema): Choice[] | undefined {
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (!values || values.length === 0) return undefined;
  if (!values.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) return undefined;
  return values.map((value) => ({ label: String(value), value }));
}

function placeholderOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) {
    return value.map(String).join('\n');
  }
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function fieldOf(
  key: string,
  raw: unknown,
  context: { root: unknown; parent: string; required: boolean; depth: number },
): FormField {
  const schema = simplify(resolveRef(raw, context.root), context.root);
  const base: FieldBase = {
    name: `${context.parent}${escapeSegment(key)}`,
    key,
    required: context.required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(placeholderOf(schema.default) === undefined ? {} : { placeholder: placeholderOf(schema.default) }),
  };
  const choices = choicesOf(schema);
  if (choices) return { ...base, kind: 'select', choices };
  switch (schema.type) {
    case 'string': {
      const maxLength = numberOr(schema.maxLength);
      return {
        ...base,
        kind: 'text',
        multiline: maxLength !== undefined && maxLength >= 1000,
        ...(typeof schema.format === 'string' ? { format: schema.format } : {}),
        ...(numberOr(schema.minLength) === undefined ? {} : { minLength: numberOr(schema.minLength) }),
        ...(maxLength === undefined ? {} : { maxLength }),
      };
    }
    case 'integer':
    case 'number': {
      const min = numberOr(schema.minimum) ?? numberOr(schema.exclusiveMinimum);
      const max = numberOr(schema.maximum) ?? numberOr(schema.exclusiveMaximum);
      return {
        ...base,
        kind: 'number',
        integer: schema.type === 'integer',
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
      };
    }
    case 'boolean':
      return { ...base, kind: 'checkbox', checkedByDefault: schema.default === true };
    case 'array': {
      const items = simplify(resolveRef(schema.items, context.root), context.root);
      const bounds = {
        ...(numberOr(schema.minItems) === undefined ? {} : { minItems: numberOr(schema.minItems) }),
        ...(numberOr(schema.maxItems) === undefined ? {} : { maxItems: numberOr(schema.maxItems) }),
      };
      const itemChoices = choicesOf(items);
      if (itemChoices) return { ...base, ...bounds, kind: 'multiselect', choices: itemChoices };
      if (items.type === 'string' || items.type === 'integer' || items.type === 'number') {
        return { ...base, ...bounds, kind: 'lines', items: items.type };
      }
      return { ...base, kind: 'json' };
    }
    case 'object':
      if (isObject(schema.properties) && context.depth < MAX_DEPTH) {
        return {
          ...base,
          kind: 'fieldset',
          fields: fieldsOf(schema, context.root, `${base.name}.`, context.depth + 1),
        };
      }
      return { ...base, kind: 'json' };
    default:
      return { ...base, kind: 'json' };
  }
}

function fieldsOf(schema: JsonSchema, root: unknown, parent: string, depth: number): FormField[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([key, property]) =>
    fieldOf(key, property, { root, parent, required: required.has(key), depth }),
  );
}

/**
 * The form for a tool's input schema (an object; `$ref`s resolve against `root`, the OpenAPI
 * document). An input without properties has no fields: the raw JSON editor is the way in.
 */
export function formModel(inputSchema: unknown, root: unknown): FormField[] {
  const schema = simplify(resolveRef(inputSchema, root), root);
  return fieldsOf(schema, root, FIELD_PREFIX, 0);
}

const single = (value: string | string[] | undefined): string =>
  (Array.isArray(value) ? value[value.length - 1] : value) ?? '';
const many = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const pathOf = (name: string) =>
  name
    .slice(FIELD_PREFIX.length)
    .split('.')
    .map((s) => decodeURIComponent(s))
    .join('.');

function numberFrom(text: string, integer: boolean): number | string {
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) return integer ? 'expects a whole number' : 'expects a number';
  if (integer && !Number.isInteger(n)) return 'expects a whole number';
  return n;
}

function choiceFrom(choices: Choice[], label: string): Choice | undefined {
  return choices.find((c) => c.label === label);
}

/** One field's value in the input, or undefined to leave it out. Problems go to `errors`. */
function fieldValue(field: FormField, values: FormValues, errors: FieldError[]): unknown {
  const fail = (message: string) => {
    errors.push({ name: field.name, path: pathOf(field.name), message });
    return undefined;
  };
  switch (field.kind) {
    case 'text': {
      const text = single(values[field.name]).trim();
      return text === '' ? undefined : text;
    }
    case 'select': {
      const label = single(values[field.name]);
      if (label === '') return undefined;
      const choice = choiceFrom(field.choices, label);
      return choice ? choice.value : fail(`is not one of ${field.choices.map((c) => c.label).join(', ')}`);
    }
    case 'number': {
      const text = single(values[field.name]).trim();
      if (text === '') return undefined;
      const n = numberFrom(text, field.integer);
      return typeof n === 'number' ? n : fail(n);
    }
    case 'checkbox':
      // An unchecked box sends nothing: false only where the default is true (else the default).
      if (single(values[field.name]) !== '') return true;
      return field.checkedByDefault ? false : undefined;
    case 'lines': {
      const lines = single(values[field.name])
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (lines.length === 0) return undefined;
      if (field.items === 'string') return lines;
      const numbers = lines.map((line) => numberFrom(line, field.items === 'integer'));
      const bad = numbers.findIndex((n) => typeof n === 'string');
      return bad === -1 ? numbers : fail(`line ${bad + 1} ${numbers[bad]}`);
    }
    case 'multiselect': {
      const labels = many(values[field.name]).filter((label) => label !== '');
      if (labels.length === 0) return undefined;
      const chosen = labels.map((label) => choiceFrom(field.choices, label));
      const bad = chosen.indexOf(undefined);
      return bad === -1 ? chosen.map((c) => c!.value) : fail(`"${labels[bad]}" is not one of the choices`);
    }
    case 'fieldset': {
      const nested = collect(field.fields, values, errors);
      return Object.keys(nested).length === 0 ? undefined : nested;
    }
    case 'json': {
      const text = single(values[field.name]).trim();
      if (text === '') return undefined;
      try {
        return JSON.parse(text);
      } catch {
        return fail('is not valid JSON');
      }
    }
  }
}

function collect(fields: FormField[], values: FormValues, errors: FieldError[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const value = fieldValue(field, values, errors);
    if (value !== undefined) input[field.key] = value;
  }
  return input;
}

/** The tool input a submitted form stands for: filled fields only, converted to their types. */
export function toolInput(
  fields: FormField[],
  values: FormValues,
): { input: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const input = collect(fields, values, errors);
  return { input, errors };
}

/**
 * The form values that show `input` (after a raw JSON run, or to keep what was run): the inverse of
 * `toolInput` for every input it can produce. Values of the wrong type are shown as their text.
 */
export function formValuesOf(fields: FormField[], input: unknown): FormValues {
  const values: FormValues = {};
  const fill = (list: FormField[], object: unknown) => {
    if (!isObject(object)) return;
    for (const field of list) {
      const value = object[field.key];
      if (value === undefined) continue;
      switch (field.kind) {
        case 'fieldset':
          fill(field.fields, value);
          break;
        case 'checkbox':
          if (value === true) values[field.name] = 'true';
          break;
        case 'lines':
          values[field.name] = Array.isArray(value) ? value.map(String).join('\n') : String(value);
          break;
        case 'multiselect':
          values[field.name] = Array.isArray(value) ? value.map(String) : [String(value)];
          break;
        case 'json':
          values[field.name] = JSON.stringify(value, null, 2);
          break;
        default:
          values[field.name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
    }
  };
  fill(fields, input);
  return values;
}

/** Whether a checkbox shows checked: as submitted, else its default when nothing was submitted. */
export function isChecked(field: FormField & { kind: 'checkbox' }, values: FormValues | undefined): boolean {
  return values === undefined ? field.checkedByDefault : single(values[field.name]) !== '';
}
