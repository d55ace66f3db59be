import type { z } from 'zod';
import { allTools } from './catalog';

// Maps with client-chosen keys (attributes, event properties, a log file's fields) are data
// whatever their keys. zod's z.record refuses an object with an own key `constructor` (it reads
// `o.constructor.prototype` to decide the object is plain), so one stored attribute of that name
// failed the gateway's output check for a whole project. Every map in a tool's schemas is a
// keyedRecord (@svc/tool-kit), never a z.record.

type Def = Record<string, unknown>;

const isSchema = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && '_zod' in value;

/** The paths (`items[].attributes`) of every z.record in `schema`, recursive schemas included. */
function recordsIn(schema: z.ZodType, path = '', seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Def;
  if (def.type === 'record') return [path || '(root)'];
  const found: string[] = [];
  const visit = (value: unknown, at: string) => {
    if (isSchema(value)) found.push(...recordsIn(value, at, seen));
    else if (Array.isArray(value)) for (const v of value) visit(v, at);
  };
  for (const [key, value] of Object.entries(def)) {
    if (key === 'shape' && value && typeof value === 'object')
      for (const [field, fieldSchema] of Object.entries(value))
        visit(fieldSchema, path ? `${path}.${field}` : field);
    else if (key === 'element') visit(value, `${path}[]`);
    else if (key === 'getter' && typeof value === 'function') visit((value as () => unknown)(), path);
    else visit(value, path);
  }
  return found;
}

describe('maps in tool schemas', () => {
  it('finds a z.record where there is one (the check itself works)', async () => {
    const { z } = await import('zod');
    expect(
      recordsIn(z.strictObject({ a: z.array(z.strictObject({ m: z.record(z.string(), z.string()) })) })),
    ).toEqual(['a[].m']);
  });

  it.each(allTools.map((t) => [t.name, t] as const))(
    '%s has no z.record in its input or output',
    (_name, tool) => {
      expect({ input: recordsIn(tool.input), output: recordsIn(tool.output) }).toEqual({
        input: [],
        output: [],
      });
    },
  );
});
