import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { filesUnder, ROOT, read } from './repository';

// The repository stands on its own: its product docs link only to files it has, and say each rule
// themselves instead of citing a document or a request a reader of the repository does not have.
const DOCS = [
  'README.md',
  'AGENTS.md',
  ...filesUnder('docs', ['.md']),
  ...filesUnder('apps', ['README.md']),
  ...filesUnder('packages', ['README.md']),
  ...filesUnder('sdks', ['README.md']),
];

describe.each(DOCS)('%s', (doc) => {
  const text = read(doc);

  it('does not point outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared|SPEC\.md|DESIGN\.md/);
  });

  it('says its rules instead of citing where they came from', () => {
    const citations = [
      ...(text.match(/\bSPEC\b|\bDESIGN\b/g) ?? []),
      ...(text.match(/\bthe (?:issue|task|ticket) (?:that|which)\b|\bas (?:the issue )?asked\b/gi) ?? []),
    ];
    expect(citations).toEqual([]);
  });

  it('links only to files that exist', () => {
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z]+:/.test(t));
    const missing = targets.filter((t) => !existsSync(join(ROOT, dirname(doc), t)));
    expect(missing).toEqual([]);
  });
});
