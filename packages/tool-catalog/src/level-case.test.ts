import { toolJsonSchema } from '@svc/tool-server';
import { LOG_LEVELS } from '@svc/tools-logs';
import { allTools } from './catalog';

// A log level is taken in any case wherever a tool filters by one ("error" = "ERROR"); a tool whose
// levels are the stored ones publishes them in their canonical (upper) case and reads any case as it.

const levelFilters = allTools.flatMap((tool) => {
  const { properties } = toolJsonSchema(tool.input, 'input') as {
    properties: Record<string, { enum?: string[] }>;
  };
  return Object.entries(properties)
    .filter(([field]) => field === 'level' || field.endsWith('_level'))
    .map(([field, property]) => [tool.name, field, property, tool] as const);
});

describe('level filters take any case', () => {
  it('finds the level filters of the catalog', () => {
    expect(levelFilters.map(([name, field]) => `${name}.${field}`)).toEqual(
      expect.arrayContaining(['log.recent.level', 'log.file_entries.level']),
    );
  });

  it.each(levelFilters)('%s %s', (_name, field, property, tool) => {
    for (const canonical of LOG_LEVELS) {
      for (const written of [
        canonical,
        canonical.toLowerCase(),
        ` ${canonical[0]}${canonical.slice(1).toLowerCase()} `,
      ]) {
        const parsed = tool.input.parse({ ...tool.example, [field]: written }) as Record<string, unknown>;
        if (property.enum) {
          expect(property.enum).toEqual([...LOG_LEVELS]);
          expect(parsed[field]).toBe(canonical);
        } else {
          expect(String(parsed[field]).toUpperCase()).toBe(canonical);
        }
      }
    }
  });
});
