// Test-only: the schema portability lint of the MCP Inspector CLI (`--strict`, inspector 2.12,
// core/json/schemaLint.ts), written again from its documented rules so every tool's schemas can be
// checked in `pnpm test` without a network or a running server. A finding is what some MCP client
// would reject or silently weaken.
//
// Rules, applied to every schema object reached from the root:
// - boolean-schema (error): `true` / `false` where a schema object is expected (allowed only as the
//   value of additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems);
// - type-union (warning): `type` is an array of type names;
// - remote-ref (warning): `$ref` not starting with '#' while the schema declares no `$id`;
// - untyped-schema (warning): an object with no keyword that constrains an instance (`{}`,
//   `{description}`), except directly under `not`.

export interface Finding {
  rule: 'boolean-schema' | 'type-union' | 'remote-ref' | 'untyped-schema';
  severity: 'error' | 'warning';
  path: string;
}

const BOOLEAN_VALUED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
const MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
];
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE_KEYWORDS = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const CONSTRAINING = new Set(
  (
    'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength ' +
    'pattern format contentMediaType contentEncoding contentSchema maxItems minItems uniqueItems ' +
    'maxContains minContains maxProperties minProperties required dependentRequired allOf anyOf oneOf ' +
    'not items prefixItems contains additionalItems unevaluatedItems properties patternProperties ' +
    'additionalProperties unevaluatedProperties propertyNames dependentSchemas dependencies $ref ' +
    '$dynamicRef $recursiveRef'
  ).split(' '),
);
const TYPE_NAMES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const MAX_DEPTH = 64;

type Node = Record<string, unknown>;
const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function childPath(path: string, key: string): string {
  const segment = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return `${path}${segment}`;
}

function declaresId(node: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(node)) return node.some((n) => declaresId(n, depth + 1));
  if (!isObject(node)) return false;
  if (typeof node.$id === 'string' && node.$id !== '') return true;
  return Object.values(node).some((v) => declaresId(v, depth + 1));
}

/** Every portability finding of one JSON schema (a tool's inputSchema or outputSchema). */
export function lintSchema(schema: unknown): Finding[] {
  const findings: Finding[] = [];
  const hasId = declaresId(schema);

  function lint(node: Node, path: string, keyword: string | undefined) {
    const type = node.type;
    if (
      Array.isArray(type) &&
      type.length > 0 &&
      type.every((t) => typeof t === 'string' && TYPE_NAMES.has(t)) &&
      new Set(type).size === type.length
    ) {
      findings.push({ rule: 'type-union', severity: 'warning', path });
    }
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#') && !hasId) {
      findings.push({ rule: 'remote-ref', severity: 'warning', path });
    }
    const constrains =
      Object.keys(node).some((k) => CONSTRAINING.has(k)) ||
      ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not')
      findings.push({ rule: 'untyped-schema', severity: 'warning', path });
  }

  function walk(node: unknown, path: string, keyword: string | undefined, depth: number) {
    if (depth > MAX_DEPTH) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED.has(keyword)) {
        findings.push({ rule: 'boolean-schema', severity: 'error', path });
      }
      return;
    }
    if (!isObject(node)) return;
    lint(node, path, keyword);
    for (const key of MAP_KEYWORDS) {
      const map = node[key];
      if (!isObject(map)) continue;
      for (const [name, child] of Object.entries(map))
        walk(child, childPath(childPath(path, key), name), key, depth + 1);
    }
    for (const key of ARRAY_KEYWORDS) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      for (const [i, child] of list.entries()) walk(child, `${childPath(path, key)}[${i}]`, key, depth + 1);
    }
    for (const key of SINGLE_KEYWORDS) {
      if (!(key in node)) continue;
      const child = node[key];
      if (key === 'items' && Array.isArray(child)) {
        for (const [i, c] of child.entries()) walk(c, `${childPath(path, key)}[${i}]`, key, depth + 1);
      } else {
        walk(child, childPath(path, key), key, depth + 1);
      }
    }
  }

  walk(schema, '', undefined, 0);
  return findings;
}
