import { allTools } from '@svc/tool-catalog';
import { isServed } from '@svc/tool-server/serve';
import { coreQueries, createCoreToolRegistry } from './registry';

// The gateway publishes the catalog; the core must serve exactly its `backend: 'core'` tools,
// each with the very schemas of the published definition (never a copy that could drift).
describe('core tool registry', () => {
  const published = allTools.filter((t) => t.backend === 'core');

  it('serves exactly the catalog tools whose backend is the core', () => {
    expect(coreQueries.map((q) => q.name).sort()).toEqual(published.map((t) => t.name).sort());
  });

  it.each(published.map((t) => [t.name, t] as const))('%s uses the published schemas', (name, tool) => {
    const served = createCoreToolRegistry().get(name)!;
    expect(served.input).toBe(tool.input);
    expect(served.output).toBe(tool.output);
  });

  // The internal tool route refuses any other at start; this names the tool that is not.
  it.each(coreQueries.map((q) => [q.name, q] as const))('%s is bound through serve', (_name, query) => {
    expect(isServed(query)).toBe(true);
  });

  it('refuses a duplicate name', () => {
    expect(() => createCoreToolRegistry([coreQueries[0]!, coreQueries[0]!])).toThrow(/duplicate/);
  });
});
