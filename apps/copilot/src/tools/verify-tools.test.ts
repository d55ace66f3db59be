import { isServed } from '@svc/tool-server/serve';
import { verifyTools } from '@svc/tools-verify';
import { copilotToolset } from './verify-tools';

// Every tool copilot serves is bound through `serve` (typed against its definition's schemas; the
// internal tool route refuses any other at start), and copilot serves exactly the verify group.
describe('copilot toolset', () => {
  it('serves exactly the published verify tools, with their definitions', () => {
    expect(copilotToolset.map((t) => t.name)).toEqual(verifyTools.map((t) => t.name));
    for (const [i, t] of copilotToolset.entries()) expect(t.definition).toBe(verifyTools[i]);
  });

  it.each(copilotToolset.map((t) => [t.name, t] as const))('%s is bound through serve', (_name, tool) => {
    expect(isServed(tool)).toBe(true);
  });
});
