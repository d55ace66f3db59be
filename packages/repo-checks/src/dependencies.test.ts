import { filesUnder, read, workspacePackages } from './repository';

// Every workspace dependency a package declares is used, and every one it uses is declared: an
// unused one costs installs and hides the real graph; an undeclared one works only by accident.
const PACKAGES = workspacePackages();
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+|resolve\(\s*)'(@svc\/[a-z0-9-]+)(?:\/[^']*)?'/g;

describe.each(PACKAGES.map((p) => [p.name, p] as const))('%s', (name, pkg) => {
  const sources = ['src', 'bin'].flatMap((d) => {
    try {
      return filesUnder(`${pkg.dir}/${d}`, ['.ts', '.tsx', '.mjs']);
    } catch {
      return [];
    }
  });
  const used = new Set(sources.flatMap((f) => [...read(f).matchAll(SPECIFIER)].map((m) => m[1]!)));
  used.delete(name);
  const declared = Object.keys(pkg.deps).filter((d) => d.startsWith('@svc/'));

  it('uses every @svc package it declares', () => {
    expect(declared.filter((d) => !used.has(d))).toEqual([]);
  });

  it('declares every @svc package it uses', () => {
    expect([...used].filter((u) => !declared.includes(u)).sort()).toEqual([]);
  });
});

// turbo refuses to run anything over a cycle (dev dependencies count), so one added for a test
// stops `pnpm test` for the whole repository; a package's own suite would never show it.
it('has no cycle among the workspace packages, dev dependencies included', () => {
  const edges = new Map(
    PACKAGES.map((p) => [p.name, Object.keys(p.deps).filter((d) => d.startsWith('@svc/') && d !== p.name)]),
  );
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'open') {
      cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
      return;
    }
    state.set(name, 'open');
    for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of edges.keys()) visit(name, []);
  expect(cycles).toEqual([]);
});
