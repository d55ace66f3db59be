import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { commentsOf, goCommentsOf } from './comments';
import { anchorsOf, headingsOf, namesHeading } from './markdown';
import { filesUnder, ROOT, read } from './repository';

// A comment or a doc that sends its reader to a section of a document of the repository names one
// that exists: `docs/x.md, "Section"` (`README, "Section"` for the repository's README),
// `"Section" in docs/x.md`, a link to `x.md#anchor`, or, inside a document, `see "Section"`
// (`under`, `above,`, `below,`) of that document. A section named without quotes could not be
// checked, so it is refused. And prose cites no document or request its reader does not have ("the
// contract", "the community tier", an issue by number, the files next to the repository outside a
// test that reads them): it states the rule itself. Prose here is every comment of the code and
// every markdown document; the checks themselves show the forms they read and refuse, so they are
// not read for it.

const DOCS = [
  'README.md',
  'AGENTS.md',
  '.changeset/README.md',
  ...filesUnder('docs', ['.md']),
  ...filesUnder('apps', ['README.md']),
  ...filesUnder('packages', ['README.md']),
  ...filesUnder('sdks', ['README.md']),
];
const CODE = [
  'jest.base.mjs',
  ...['apps', 'packages', 'scripts', 'deploy'].flatMap((dir) =>
    filesUnder(dir, ['.ts', '.tsx', '.mjs', '.js']),
  ),
  ...filesUnder('sdks', ['.mjs', '.go']),
].filter((path) => !path.startsWith('packages/repo-checks/'));
const isTest = (path: string) => /\.test\.tsx?$|\/testing\/|\/e2e\//.test(path);

interface Prose {
  /** The file the text is in. */
  file: string;
  /** Where a reader finds it: `file:line`. */
  where: (offset: number) => string;
  text: string;
  isDoc: boolean;
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;
const PROSE: Prose[] = [
  ...DOCS.map((file) => {
    const text = read(file);
    return { file, text, isDoc: true, where: (offset: number) => `${file}:${lineAt(text, offset)}` };
  }),
  ...CODE.flatMap((file) =>
    (file.endsWith('.go') ? goCommentsOf(read(file)) : commentsOf(file, read(file))).map((comment) => ({
      file,
      text: comment.text,
      isDoc: false,
      where: () => `${file}:${comment.line}`,
    })),
  ),
];

/** The repository file a document name in `prose` stands for (code comments name docs/ files). */
function documentOf(prose: Prose, name: string): string {
  if (name === 'README') return 'README.md';
  if (prose.isDoc) return name.startsWith('docs/') ? name : normalize(join(dirname(prose.file), name));
  if (name.includes('/') || !existsSync(join(ROOT, 'docs', name))) return normalize(name);
  return `docs/${name}`;
}

/** A document's path, or README alone: the repository's README. */
const DOC_NAME = String.raw`((?:\.\./)*(?:[\w.-]+/)*[\w-]+\.md|\bREADME\b)`;

interface SectionReference {
  where: string;
  document: string;
  section: string;
}

const SECTION_REFERENCES: SectionReference[] = PROSE.flatMap((prose) => [
  ...[...prose.text.matchAll(new RegExp(`${DOC_NAME}, "([^"]+)"`, 'g'))].map((m) => ({
    where: prose.where(m.index),
    document: documentOf(prose, m[1]!),
    section: m[2]!,
  })),
  ...[...prose.text.matchAll(new RegExp(`"([^"]+)" (?:in|of) ${DOC_NAME}`, 'g'))].map((m) => ({
    where: prose.where(m.index),
    document: documentOf(prose, m[2]!),
    section: m[1]!,
  })),
  ...(prose.isDoc
    ? [...prose.text.matchAll(/\b(?:[Ss]ee|under|[Aa]bove,|[Bb]elow,) "([^"]+)"(?! (?:in|of) )/g)].map(
        (m) => ({
          where: prose.where(m.index),
          document: prose.file,
          section: m[1]!,
        }),
      )
    : []),
]);

const ANCHOR_REFERENCES = PROSE.flatMap((prose) => {
  const links = prose.isDoc
    ? [...prose.text.matchAll(/\]\(([^)\s#]*\.md|)#([^)\s]+)\)/g)]
    : [...prose.text.matchAll(new RegExp(`${DOC_NAME}#([\\w-]+)`, 'g'))];
  return links.map((m) => ({
    where: prose.where(m.index),
    document: m[1] ? documentOf(prose, m[1]) : prose.file,
    anchor: m[2]!,
  }));
});

const existing = (document: string) => existsSync(join(ROOT, document));

describe('references to sections', () => {
  it('are found (the patterns above still match how the repository writes them)', () => {
    expect(SECTION_REFERENCES.length).toBeGreaterThan(50);
    expect(ANCHOR_REFERENCES.length).toBeGreaterThan(50);
  });

  it('name a section the document has', () => {
    const wrong = SECTION_REFERENCES.filter(
      (ref) => !existing(ref.document) || !namesHeading(ref.section, headingsOf(read(ref.document))),
    ).map((ref) => `${ref.where}: ${ref.document}, "${ref.section}"`);
    expect(wrong).toEqual([]);
  });

  it('link to an anchor the document has', () => {
    const wrong = ANCHOR_REFERENCES.filter(
      (ref) => !existing(ref.document) || !anchorsOf(read(ref.document)).has(ref.anchor),
    ).map((ref) => `${ref.where}: ${ref.document}#${ref.anchor}`);
    expect(wrong).toEqual([]);
  });

  it('name the section in quotes, so that it can be checked', () => {
    const unquoted = PROSE.flatMap((prose) =>
      [
        ...prose.text.matchAll(
          /(?<![\w/.-])((?:docs\/)?[a-z][a-z-]*\.md|README), (?!docs\/|[\w/-]+\.md|[A-Z]+\b|and\b|or\b)(\w[^,;:.()"]*)/g,
        ),
      ].map((m) => `${prose.where(m.index)}: ${m[1]}, ${m[2]}`),
    );
    expect(unquoted).toEqual([]);
  });

  it('in code comments name documents that exist', () => {
    const missing = PROSE.filter((prose) => !prose.isDoc).flatMap((prose) =>
      [...prose.text.matchAll(/(?<![\w./-])docs\/[\w-]+\.md/g)]
        .filter((m) => !existing(m[0]))
        .map((m) => `${prose.where(m.index)}: ${m[0]}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('citations', () => {
  const CITATIONS = [
    /\bthe contract\b/gi,
    /\bcommunity tier\b/gi,
    /\b(?:issue|ticket)s? ?#?\d+(?!\d)/gi,
    /\bSPEC(?:\.md)?\b|\bDESIGN(?:\.md)?\b/g,
  ];

  it('in the documents name no document or request outside the repository', () => {
    const cited = PROSE.filter((prose) => prose.isDoc).flatMap((prose) =>
      CITATIONS.flatMap((pattern) =>
        [...prose.text.matchAll(pattern)].map((m) => `${prose.where(m.index)}: ${m[0]}`),
      ),
    );
    expect(cited).toEqual([]);
  });

  it('in the code (comments, messages, descriptions) name no document or request outside the repository', () => {
    const cited = CODE.flatMap((file) =>
      CITATIONS.flatMap((pattern) => [...read(file).matchAll(pattern)].map((m) => `${file}: ${m[0]}`)),
    );
    expect(cited).toEqual([]);
  });

  it('mention the files next to the repository only in tests that read them', () => {
    const reads = (file: string) => /['"]\.\.\/shared|['"]\.\.['"],\s*['"]shared['"]/.test(read(file));
    const cited = PROSE.filter(
      (prose) => /\.\.\/shared/.test(prose.text) && !(isTest(prose.file) && reads(prose.file)),
    ).map((prose) => prose.where(prose.text.indexOf('../shared')));
    expect(cited).toEqual([]);
  });
});
