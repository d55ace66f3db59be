import { ToolRegistry, toolJsonSchema } from '@svc/tool-server';
import { allTools } from './catalog';
import { FORBIDDEN_TOOL_NAMES, SPEC_TOOL_NAMES } from './spec-names';

// Meta-tests over the registry: every rule a tool must follow, checked for every tool.
const specNames = new Map<string, string>(
  Object.entries(SPEC_TOOL_NAMES).flatMap(([capability, names]) =>
    names.map((n) => [n, capability] as const),
  ),
);

describe('tool catalog', () => {
  it('lists 36 tools: 28 base, 3 trace, 3 recall, 2 verifier', () => {
    expect(specNames.size).toBe(36);
    expect(SPEC_TOOL_NAMES.base).toHaveLength(28);
  });

  it('has unique names, all of them documented names, none of the forbidden ones', () => {
    expect(() => new ToolRegistry(allTools)).not.toThrow();
    for (const tool of allTools) {
      expect(specNames.has(tool.name)).toBe(true);
      expect(FORBIDDEN_TOOL_NAMES).not.toContain(tool.name);
    }
  });

  it('contains the five log tools of the core and the three of recall', () => {
    const logTools = (backend: string) =>
      allTools
        .filter((t) => t.name.startsWith('log.') && t.backend === backend)
        .map((t) => t.name)
        .sort();
    expect(logTools('core')).toEqual([
      'log.aggregate',
      'log.by_session',
      'log.by_user',
      'log.recent',
      'log.search',
    ]);
    expect(logTools('recall')).toEqual(['log.audit', 'log.file_entries', 'log.list_files']);
  });

  describe.each(allTools.map((t) => [t.name, t] as const))('%s', (_name, tool) => {
    it('carries its documented capability', () => {
      expect(tool.capability).toBe(specNames.get(tool.name));
    });

    it('is annotated read-only, non-destructive, closed-world', () => {
      expect(tool.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
    });

    it('has a strict object input and an object output schema', () => {
      const input = toolJsonSchema(tool.input, 'input');
      expect(input.type).toBe('object');
      expect(input.additionalProperties).toBe(false);
      expect(toolJsonSchema(tool.output, 'output').type).toBe('object');
    });

    it('never mentions project_id in any schema and rejects it as input', () => {
      const text = JSON.stringify([
        toolJsonSchema(tool.input, 'input'),
        toolJsonSchema(tool.output, 'output'),
      ]);
      expect(text).not.toContain('project_id');
      expect(tool.input.safeParse({ project_id: 'x' }).success).toBe(false);
    });

    it('has a title and a description that says what comes back, under 600 characters', () => {
      expect(tool.title.length).toBeGreaterThan(3);
      expect(tool.description.length).toBeGreaterThan(60);
      expect(tool.description.length).toBeLessThanOrEqual(600);
      expect(tool.description).toMatch(/Returns|returns|gives/);
    });

    it('has an example call that its input schema accepts', () => {
      expect(tool.input.safeParse(tool.example).success).toBe(true);
    });

    it('has a limit of 1..1000 (aggregates 10000) when it takes one', () => {
      const shape = tool.input.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
      if (!('limit' in shape)) return;
      const probe = (limit: number) => shape.limit!.safeParse(limit).success;
      expect(probe(0)).toBe(false);
      expect(probe(1)).toBe(true);
      expect(probe(1000)).toBe(true);
      expect(probe(10001)).toBe(false);
    });
  });
});
