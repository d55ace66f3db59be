import { toolJsonSchema } from '@svc/tool-server';
import { allTools, catalogToolsets } from './catalog';
import { investigationGuides } from './guides';

// Meta-tests of the investigation guides over the registry: a guide naming a tool or a parameter
// that does not exist would send a model to a refusal, so a rename fails here first.
const toolsByName = new Map(allTools.map((tool) => [tool.name, tool]));
const parametersOf = (name: string): string[] => {
  const tool = toolsByName.get(name);
  if (!tool) return [];
  const schema = toolJsonSchema(tool.input, 'input') as { properties?: Record<string, unknown> };
  return Object.keys(schema.properties ?? {});
};

describe('investigation guides', () => {
  it('are four, with distinct names', () => {
    const names = investigationGuides.map((g) => g.name);
    expect(new Set(names).size).toBe(4);
  });

  it.each(investigationGuides.map((g) => [g.name, g] as const))(
    '%s names existing tools and parameters',
    (_n, guide) => {
      for (const step of guide.steps) {
        expect({ step: step.tool, exists: toolsByName.has(step.tool) }).toEqual({
          step: step.tool,
          exists: true,
        });
        const known = parametersOf(step.tool);
        for (const parameter of Object.keys(step.args))
          expect({ tool: step.tool, parameter, known: known.includes(parameter) }).toEqual({
            tool: step.tool,
            parameter,
            known: true,
          });
      }
    },
  );

  it.each(investigationGuides.map((g) => [g.name, g] as const))(
    '%s fills only arguments it declares',
    (_n, guide) => {
      const declared = new Set(guide.arguments.map((a) => a.name));
      const texts = guide.steps.flatMap((s) => [s.lookFor, ...Object.values(s.args).map(String)]);
      for (const text of texts)
        for (const [, name] of text.matchAll(/\{(\w+)\}/g))
          expect({ name, declared: declared.has(name ?? '') }).toEqual({ name, declared: true });
    },
  );
});

describe('toolsets', () => {
  it('hold every catalog tool exactly once, named after their packages', () => {
    const grouped = Object.values(catalogToolsets).flatMap((tools) => tools.map((t) => t.name));
    expect(grouped.sort()).toEqual(allTools.map((t) => t.name).sort());
    expect(Object.keys(catalogToolsets)).toEqual([
      'logs',
      'crash',
      'apm',
      'trace',
      'users',
      'analytics',
      'recall',
      'verify',
    ]);
  });
});
