import { readFileSync } from 'node:fs';
import { allTools } from './catalog';
import { CONTRACT_FILES } from './contract-files';
import { renderOpenApi, renderToolReference } from './reference';

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
