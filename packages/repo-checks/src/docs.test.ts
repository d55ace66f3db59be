import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { filesUnder, ROOT, read } from './repository';

// The repository stands on its own: its product docs link only to files it has.
const DOCS = ['README.md', 'AGENTS.md', ...filesUnder('docs', ['.md'])];

describe.each(DOCS)('%s', (doc) => {
  const text = read(doc);

  it('does not point outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared|SPEC\.md|DESIGN\.md/);
  });

  it('links only to files that exist', () => {
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z]+:/.test(t));
    const missing = targets.filter((t) => !existsSync(join(ROOT, dirname(doc), t)));
    expect(missing).toEqual([]);
  });
});
