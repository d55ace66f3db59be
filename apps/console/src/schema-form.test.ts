import { readFileSync } from 'node:fs';
import { catalogTools, findTool } from './gateway-catalog';
import {
  FIELD_PREFIX,
  type FormField,
  type FormValues,
  formModel,
  formValuesOf,
  resolveRef,
  toolInput,
} from './schema-form';
import type { OpenApiDocument } from './tool-calls';

// The generated form over hand-made schemas (every kind, refs, cycles) and over the stack's real
// contract (docs/openapi.json, what a gateway serves): the model, and form values -> tool input.

const contract = JSON.parse(
  readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;

const byKey = (fields: FormField[]) => Object.fromEntries(fields.map((f) => [f.key, f]));

const root = {
  components: {
    schemas: {
      Level: { type: 'string', enum: ['DEBUG', 'INFO', 'ERROR'], description: 'The level.' },
      Alias: { $ref: '#/components/schemas/Level' },
      Window: {
        type: 'object',
        properties: {
          from: { type: 'string', format: 'date', description: 'First day.' },
          hours: { type: 'integer', minimum: 1, maximum: 48, default: 24 },
        },
        required: ['from'],
      },
      Loop: { type: 'object', properties: { next: { $ref: '#/components/schemas/Loop' } } },
      'odd/name': { type: 'boolean' },
      input: {
        type: 'object',
        properties: {
          search: { type: 'string', minLength: 1, maxLength: 200, description: 'Text to find.' },
          claim: { type: 'string', maxLength: 4000 },
          level: { $ref: '#/components/schemas/Alias', description: 'Own description wins.' },
          levels: { type: 'array', items: { $ref: '#/components/schemas/Level' }, maxItems: 3 },
          steps: { type: 'array', items: { type: 'string' }, minItems: 2, default: ['a', 'b'] },
          ids: { type: 'array', items: { type: 'integer' } },
          limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
          ratio: { type: 'number', exclusiveMinimum: 0 },
          exact: { type: 'boolean' },
          fuzzy: { type: 'boolean', default: true },
          window: { $ref: '#/components/schemas/Window' },
          since: {
            anyOf: [
              { type: 'string', format: 'date-time' },
              { type: 'string', format: 'date' },
            ],
          },
          maybe: { type: ['string', 'null'] },
          nullable: { anyOf: [{ $ref: '#/components/schemas/odd~1name' }, { type: 'null' }] },
          attributes: { type: 'object', additionalProperties: { type: 'string' } },
          rows: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          loop: { $ref: '#/components/schemas/Loop' },
          'a.b': { type: 'string' },
          elsewhere: { $ref: 'https://example.com/schema.json' },
        },
        required: ['search', 'steps'],
        additionalProperties: false,
      },
    },
  },
};
const fields = formModel({ $ref: '#/components/schemas/input' }, root);
const f = byKey(fields);

describe('resolveRef', () => {
  it('follows local refs through aliases, keywords beside the ref winning', () => {
    expect(resolveRef({ $ref: '#/components/schemas/Alias', description: 'mine' }, root)).toEqual({
      type: 'string',
      enum: ['DEBUG', 'INFO', 'ERROR'],
      description: 'mine',
    });
    expect(resolveRef({ $ref: '#/components/schemas/odd~1name' }, root)).toEqual({ type: 'boolean' });
  });

  it('gives an empty schema for a ref it cannot follow (remote, missing, a cycle of aliases)', () => {
    expect(resolveRef({ $ref: 'https://example.com/x.json' }, root)).toEqual({});
    expect(resolveRef({ $ref: '#/components/schemas/Nope', description: 'd' }, root)).toEqual({
      description: 'd',
    });
    const cyclic = { a: { $ref: '#/b' }, b: { $ref: '#/a' } };
    expect(resolveRef({ $ref: '#/a' }, cyclic)).toEqual({});
  });
});

describe('formModel', () => {
  it('keeps the properties in schema order, marks the required ones, prefixes every name', () => {
    expect(fields.map((x) => x.key)).toEqual(Object.keys(root.components.schemas.input.properties));
    expect(fields.filter((x) => x.required).map((x) => x.key)).toEqual(['search', 'steps']);
    for (const field of fields) expect(field.name.startsWith(FIELD_PREFIX)).toBe(true);
  });

  it('maps each schema to its control', () => {
    const kinds = Object.fromEntries(fields.map((x) => [x.key, x.kind]));
    expect(kinds).toEqual({
      search: 'text',
      claim: 'text',
      level: 'select',
      levels: 'multiselect',
      steps: 'lines',
      ids: 'lines',
      limit: 'number',
      ratio: 'number',
      exact: 'checkbox',
      fuzzy: 'checkbox',
      window: 'fieldset',
      since: 'text',
      maybe: 'text',
      nullable: 'checkbox',
      attributes: 'json',
      rows: 'json',
      loop: 'fieldset',
      'a.b': 'text',
      elsewhere: 'json',
    });
  });

  it('carries descriptions, defaults as placeholders, bounds and choices', () => {
    expect(f.search).toMatchObject({
      description: 'Text to find.',
      minLength: 1,
      maxLength: 200,
      multiline: false,
    });
    expect(f.claim).toMatchObject({ multiline: true, maxLength: 4000 });
    expect(f.level).toMatchObject({
      description: 'Own description wins.',
      choices: ['DEBUG', 'INFO', 'ERROR'].map((v) => ({ label: v, value: v })),
    });
    expect(f.levels).toMatchObject({
      maxItems: 3,
      choices: [{ label: 'DEBUG' }, { label: 'INFO' }, { label: 'ERROR' }],
    });
    expect(f.steps).toMatchObject({ items: 'string', minItems: 2, placeholder: 'a\nb' });
    expect(f.ids).toMatchObject({ items: 'integer' });
    expect(f.limit).toMatchObject({ integer: true, min: 1, max: 1000, placeholder: '50' });
    expect(f.ratio).toMatchObject({ integer: false, min: 0 });
    expect(f.fuzzy).toMatchObject({ checkedByDefault: true, placeholder: 'true' });
    expect(f.exact).toMatchObject({ checkedByDefault: false });
  });

  it('nests objects as fieldsets with dotted names, and stops at a cycle', () => {
    const window = f.window as FormField & { kind: 'fieldset' };
    expect(window.fields.map((x) => [x.name, x.kind, x.required])).toEqual([
      ['in.window.from', 'text', true],
      ['in.window.hours', 'number', false],
    ]);
    expect(window.fields[0]).toMatchObject({ format: 'date', description: 'First day.' });
    let depth = 0;
    let node: FormField | undefined = f.loop;
    while (node?.kind === 'fieldset') {
      depth++;
      node = node.fields[0];
    }
    expect(node?.kind).toBe('json');
    expect(depth).toBe(6);
  });

  it('escapes dots in property names so that names stay unambiguous', () => {
    expect(f['a.b']!.name).toBe('in.a%2Eb');
  });

  it('has no fields for an input without properties', () => {
    expect(formModel({ type: 'object' }, {})).toEqual([]);
    expect(formModel(undefined, {})).toEqual([]);
  });
});

describe('toolInput', () => {
  it('sends only the filled fields, each converted to its type', () => {
    const values: FormValues = {
      _csrf: 'x',
      'in.search': '  timeout ',
      'in.claim': '',
      'in.level': 'ERROR',
      'in.levels': ['DEBUG', 'ERROR'],
      'in.steps': 'signup\r\n\n  checkout  \n',
      'in.ids': '3\n 40 ',
      'in.limit': '25',
      'in.ratio': '0.5',
      'in.exact': 'true',
      'in.window.from': '2030-01-02',
      'in.window.hours': '',
      'in.since': '2030-01-01',
      'in.attributes': '{"k": "v"}',
      'in.a%2Eb': 'dotted',
    };
    expect(toolInput(fields, values)).toEqual({
      input: {
        search: 'timeout',
        level: 'ERROR',
        levels: ['DEBUG', 'ERROR'],
        steps: ['signup', 'checkout'],
        ids: [3, 40],
        limit: 25,
        ratio: 0.5,
        exact: true,
        // Unchecked with a default of true: the person turned it off.
        fuzzy: false,
        window: { from: '2030-01-02' },
        since: '2030-01-01',
        attributes: { k: 'v' },
        'a.b': 'dotted',
      },
      errors: [],
    });
  });

  it('leaves out everything empty (an unchecked box without a true default included)', () => {
    const empty = Object.fromEntries(fields.map((x) => [x.name, '']));
    expect(toolInput(fields, { ...empty, 'in.fuzzy': 'true' })).toEqual({
      input: { fuzzy: true },
      errors: [],
    });
  });

  it('names each field it cannot convert, by its path', () => {
    const { errors } = toolInput(fields, {
      'in.limit': '2.5',
      'in.ratio': 'lots',
      'in.ids': '1\nx',
      'in.level': 'TRACE',
      'in.levels': ['INFO', 'NOPE'],
      'in.attributes': '{nope',
      'in.window.hours': '1e400',
      'in.a%2Eb': 'fine',
    });
    expect(errors).toEqual([
      { name: 'in.level', path: 'level', message: 'is not one of DEBUG, INFO, ERROR' },
      { name: 'in.levels', path: 'levels', message: '"NOPE" is not one of the choices' },
      { name: 'in.ids', path: 'ids', message: 'line 2 expects a whole number' },
      { name: 'in.limit', path: 'limit', message: 'expects a whole number' },
      { name: 'in.ratio', path: 'ratio', message: 'expects a number' },
      { name: 'in.window.hours', path: 'window.hours', message: 'expects a whole number' },
      { name: 'in.attributes', path: 'attributes', message: 'is not valid JSON' },
    ]);
  });

  it('takes enum values of other types back to their type', () => {
    const numeric = formModel(
      { type: 'object', properties: { n: { enum: [1, 2] }, b: { const: true } } },
      {},
    );
    expect(toolInput(numeric, { 'in.n': '2', 'in.b': 'true' }).input).toEqual({ n: 2, b: true });
  });
});

describe('formValuesOf', () => {
  it('shows an input in the form that gives it back', () => {
    const input = {
      search: 'timeout',
      level: 'INFO',
      levels: ['ERROR'],
      steps: ['a', 'b', 'c'],
      ids: [1, 2],
      limit: 10,
      ratio: 1.25,
      exact: true,
      fuzzy: false,
      window: { from: '2030-01-01', hours: 6 },
      attributes: { nested: [1, { x: null }] },
      'a.b': 'dots',
    };
    const values = formValuesOf(fields, input);
    expect(values['in.steps']).toBe('a\nb\nc');
    expect(values['in.exact']).toBe('true');
    expect(values['in.fuzzy']).toBeUndefined();
    expect(toolInput(fields, values)).toEqual({ input, errors: [] });
  });
});

/** A value a field accepts, made from the field itself (its bounds and choices). */
function sample(field: FormField): unknown {
  switch (field.kind) {
    case 'text':
      return field.format === 'date' ? '2030-01-02' : 'x'.repeat(Math.max(field.minLength ?? 1, 1));
    case 'select':
      return field.choices.at(-1)!.value;
    case 'multiselect':
      return field.choices.slice(0, Math.max(field.minItems ?? 1, 1)).map((c) => c.value);
    case 'number':
      return field.max ?? (field.min ?? 0) + 1;
    case 'checkbox':
      return !field.checkedByDefault;
    case 'lines':
      return Array.from({ length: Math.max(field.minItems ?? 1, 1) }, (_, i) =>
        field.items === 'string' ? `item ${i}` : i + 1,
      );
    case 'fieldset':
      return Object.fromEntries(field.fields.map((x) => [x.key, sample(x)]));
    case 'json':
      return { any: ['json'] };
  }
}

describe('the real contract (docs/openapi.json)', () => {
  const tools = catalogTools(contract);

  it('has a form for every published tool, every input property a control', () => {
    expect(tools.length).toBeGreaterThan(30);
    for (const tool of tools) {
      const schema = resolveRef(tool.inputSchema, contract);
      const model = formModel(tool.inputSchema, contract);
      expect(model.map((x) => x.key)).toEqual(Object.keys((schema.properties as object) ?? {}));
    }
  });

  it('gives back from the form every input made of the form', () => {
    for (const tool of tools) {
      const model = formModel(tool.inputSchema, contract);
      const input = Object.fromEntries(model.map((x) => [x.key, sample(x)]));
      expect({ tool: tool.name, ...toolInput(model, formValuesOf(model, input)) }).toEqual({
        tool: tool.name,
        input,
        errors: [],
      });
    }
  });

  it('makes the controls the schemas call for', () => {
    const model = (name: string) => byKey(formModel(findTool(contract, name)!.inputSchema, contract));
    expect(model('analytics.funnel').steps).toMatchObject({ kind: 'lines', required: true, minItems: 2 });
    expect(model('crash.aggregate').group_by).toMatchObject({ kind: 'select', required: true });
    expect(model('trace.search').min_duration_ms).toMatchObject({ kind: 'number', integer: false, min: 0 });
    expect(model('log.list_files').date).toMatchObject({ kind: 'text', format: 'date' });
    expect(model('log.search').limit).toMatchObject({ kind: 'number', integer: true, placeholder: '20' });
    // A date or a date-time: one text field.
    expect(model('crash.recurrence').since).toMatchObject({ kind: 'text', required: true });
  });
});
