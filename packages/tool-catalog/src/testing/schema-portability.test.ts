import { lintSchema } from './schema-portability';

// The lint must find what the MCP Inspector CLI (`--strict`) reports, or the catalog check that
// uses it proves nothing. Cases taken from a run of the inspector 2.12 against a test server.
describe('schema portability lint', () => {
  it('flags an empty value schema of a record, as the inspector did for additionalProperties: {}', () => {
    expect(
      lintSchema({ type: 'object', properties: { a: { type: 'object', additionalProperties: {} } } }),
    ).toEqual([{ rule: 'untyped-schema', severity: 'warning', path: '.properties.a.additionalProperties' }]);
  });

  it('accepts typed value schemas, `additionalProperties: true` and `{not: {}}`', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: {
          a: { type: 'object', additionalProperties: { type: 'string' } },
          b: { type: 'object', additionalProperties: true },
          c: { not: {} },
        },
      }),
    ).toEqual([]);
  });

  it('flags type unions, description-only schemas, remote refs, lone if, and boolean schemas', () => {
    const findings = lintSchema({
      type: 'object',
      properties: {
        union: { type: ['string', 'null'] },
        prose: { description: 'x' },
        remote: { $ref: 'https://example.com/s.json' },
        lonelyIf: { if: { const: 1 } },
        yes: true,
        no: false,
      },
    });
    expect(findings.map((f) => [f.rule, f.severity, f.path])).toEqual([
      ['type-union', 'warning', '.properties.union'],
      ['untyped-schema', 'warning', '.properties.prose'],
      ['remote-ref', 'warning', '.properties.remote'],
      ['untyped-schema', 'warning', '.properties.lonelyIf'],
      ['boolean-schema', 'error', '.properties.yes'],
      ['boolean-schema', 'error', '.properties.no'],
    ]);
  });

  it('reaches into items, anyOf and $defs', () => {
    expect(
      lintSchema({
        type: 'array',
        items: { anyOf: [{ type: 'string' }, {}] },
        $defs: { x: { description: 'unused but linted' } },
      }).map((f) => f.path),
    ).toEqual(['.$defs.x', '.items.anyOf[1]']);
  });
});
