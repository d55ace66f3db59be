import { readFileSync } from 'node:fs';
import { allTools } from './catalog';
import { CONTRACT_FILES } from './contract-files';
import { renderOpenApi, renderToolReference, viewFact } from './reference';
import { catalogViews } from './views';

// Drift guard: the committed contract is exactly what the code publishes. A failure here means a
// tool's schema or description changed: run `pnpm contract`, review the diff in docs/, commit it.
describe('the committed contract', () => {
  it.each([
    ['docs/openapi.json', CONTRACT_FILES.openapi, () => renderOpenApi(allTools)],
    ['docs/tools.md', CONTRACT_FILES.reference, () => renderToolReference(allTools)],
  ])('%s is up to date (else: pnpm contract, review, commit)', (_name, path, render) => {
    expect(readFileSync(path, 'utf8')).toBe(render());
  });
});

describe('docs/tools.md and the MCP Apps views', () => {
  const reference = renderToolReference(allTools);
  const sectionOf = (name: string) =>
    reference.split('\n### ').find((s) => s.startsWith(`\`${name}\`:`)) ?? '';

  it('marks exactly the tools that have a view, each with its view', () => {
    const withView = Object.keys(catalogViews.toolMetas);
    expect(withView.length).toBeGreaterThan(0);
    for (const tool of allTools) {
      const meta = catalogViews.toolMetas[tool.name];
      const section = sectionOf(tool.name);
      expect(section).not.toBe('');
      if (meta) expect(section).toContain(viewFact(meta.ui.resourceUri));
      else expect(section).not.toContain('inline view');
    }
  });
});
