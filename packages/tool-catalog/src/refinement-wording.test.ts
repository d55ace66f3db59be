import { parseInput, UserInputError } from '@svc/errors';
import { toolJsonSchema } from '@svc/tool-server';
import { z } from 'zod';
import { allTools } from './catalog';

// A 400 lists each issue as "<field> <message>" ("version is required when versions is not given"),
// so every message, a tool's own refinements (exactly one of two fields...) included, must read as
// the rest of a sentence after the field name: it starts with "must" or "is". input-errors.test.ts
// checks the messages of wrong values field by field; this reaches the object-level refinements,
// which only combinations of fields set off: each tool's example with one field left out, with one
// more field given, and nothing at all.

type Tool = (typeof allTools)[number];
type Property = {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  minLength?: number;
};

/** A valid value of each field name some tool's example gives. */
const exampleValues = new Map<string, unknown>();
for (const tool of allTools)
  for (const [field, value] of Object.entries(tool.example))
    if (!exampleValues.has(field)) exampleValues.set(field, value);

/** A value a field of this schema takes, when one can be told from the schema alone. */
function sampleOf(field: string, p: Property): unknown {
  if (exampleValues.has(field)) return exampleValues.get(field);
  if (p.enum) return p.enum[0];
  if (p.pattern || p.format) return undefined;
  if (p.type === 'string') return 'x'.repeat(Math.max(1, p.minLength ?? 1));
  if (p.type === 'integer' || p.type === 'number') return p.minimum ?? 1;
  if (p.type === 'boolean') return true;
  return undefined;
}

function variants(tool: Tool): Record<string, unknown>[] {
  const example = { ...tool.example } as Record<string, unknown>;
  const { properties } = toolJsonSchema(tool.input, 'input') as { properties: Record<string, Property> };
  const out: Record<string, unknown>[] = [{}, example];
  for (const field of Object.keys(example)) {
    const { [field]: _left, ...rest } = example;
    out.push(rest);
  }
  for (const [field, property] of Object.entries(properties)) {
    if (field in example) continue;
    const value = sampleOf(field, property);
    if (value !== undefined) out.push({ ...example, [field]: value });
  }
  return out;
}

function issuesOf(tool: Tool, input: unknown): { path: string; message: string }[] {
  try {
    parseInput(tool.input, input, tool.name);
    return [];
  } catch (err) {
    if (err instanceof UserInputError) return err.details as { path: string; message: string }[];
    throw err;
  }
}

/** The tool's fields without its object-level refinements. */
const fieldsOnly = (tool: Tool) => z.strictObject((tool.input as z.ZodObject).shape);

const withRefinements = allTools.filter((t) => ((t.input as z.ZodObject)._zod.def.checks ?? []).length > 0);

describe('every 400 reads as a sentence after the field it names', () => {
  it.each(allTools.map((t) => [t.name, t] as const))('%s', (_name, tool) => {
    for (const input of variants(tool)) {
      for (const issue of issuesOf(tool, input)) {
        if (issue.path === '') expect(issue.message).toMatch(/^[A-Z]/);
        else expect(`${issue.path} ${issue.message}`).toMatch(/^[\w.]+ (must|is)\b/);
      }
    }
  });

  it('reaches the object-level refinement of every tool that has one', () => {
    expect(withRefinements.map((t) => t.name)).toEqual(
      expect.arrayContaining(['release.health', 'verify.run_session']),
    );
    for (const tool of withRefinements) {
      const reached = variants(tool).filter(
        (input) => fieldsOnly(tool).safeParse(input).success && issuesOf(tool, input).length > 0,
      );
      expect({ tool: tool.name, reached: reached.length > 0 }).toEqual({ tool: tool.name, reached: true });
    }
  });
});
