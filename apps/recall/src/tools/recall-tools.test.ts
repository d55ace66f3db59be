import { isServed } from '@svc/tool-server/serve';
import { recallTools } from '@svc/tools-recall';
import { recallToolset } from './recall-tools';

// Every tool recall serves is bound through `serve` (typed against its definition's schemas; the
// internal tool route refuses any other at start), and recall serves exactly the recall group.
describe('recall toolset', () => {
  it('serves exactly the published recall tools, with their definitions', () => {
    expect(recallToolset.map((t) => t.name)).toEqual(recallTools.map((t) => t.name));
    for (const [i, t] of recallToolset.entries()) expect(t.definition).toBe(recallTools[i]);
  });

  it.each(recallToolset.map((t) => [t.name, t] as const))('%s is bound through serve', (_name, tool) => {
    expect(isServed(tool)).toBe(true);
  });
});
