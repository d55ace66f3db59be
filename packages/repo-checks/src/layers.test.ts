import { circles, type Graph, resolveRelative, specifiersOf, wayRound } from './import-graph';
import { filesUnder, workspacePackages } from './repository';

// The house has floors: packages/ is the ground, each app stands on a floor of its own, and an
// arrow (a dependency, dev ones included, or an import in any file, tests included) only points
// down. So a package can be understood, tested and changed without what stands on it, and no
// change up high can break what lies below. Within one package no file circle, and no circle
// between the folders of its src/: a circle is one module cut into pieces that cannot be read
// (or loaded) one at a time.

/**
 * Every app's floor, read from what it imports today. The packages in packages/ are floor 0 and
 * may use one another (the cycle check in dependencies.test.ts keeps them apart); an app may use
 * packages and apps of lower floors only.
 */
const APP_LAYERS: Record<string, number> = {
  // The services: each stands on packages/ alone.
  'apps/identity': 1,
  'apps/observability-core': 1,
  'apps/http-gateway': 1,
  'apps/stdio-server': 1,
  // Services whose tests start the one below them: identity (console, recall), the core (copilot).
  'apps/console': 2,
  'apps/recall': 2,
  'apps/copilot': 2,
  // The whole stack: every service's config loader against docker-compose.yml,
  'apps/self-hosting': 3,
  // then every service in one process (its compose topology test uses self-hosting),
  'apps/standalone': 4,
  // then what runs against that stack: the SDKs and the CLI, the benchmarks.
  'apps/sdk-e2e': 5,
  'apps/bench': 5,
};

const HERE = 'packages/repo-checks/src/layers.test.ts';
const PACKAGES = workspacePackages();
const BY_NAME = new Map(PACKAGES.map((p) => [p.name, p]));
const SOURCE_ENDINGS = ['.ts', '.tsx', '.mts', '.cts', '.mjs', '.cjs', '.js'];
const isTest = (path: string) => /\.test\.[cm]?[jt]sx?$/.test(path);

const layerOf = (dir: string): number | undefined => (dir.startsWith('packages/') ? 0 : APP_LAYERS[dir]);

/** Every file of a package (tests, scripts and fixtures too), without node_modules, dist and the like. */
const filesOf = (dir: string) => filesUnder(dir, SOURCE_ENDINGS);

describe('layers', () => {
  it('gives every app a floor', () => {
    const missing = PACKAGES.filter((p) => layerOf(p.dir) === undefined).map(
      (p) =>
        `${p.dir} (${p.name}) has no floor: add it to APP_LAYERS in ${HERE}, one above the highest app it uses`,
    );
    expect(missing).toEqual([]);
  });

  it('names only apps that exist', () => {
    const dirs = new Set(PACKAGES.map((p) => p.dir));
    const stale = Object.keys(APP_LAYERS)
      .filter((dir) => !dirs.has(dir))
      .map((dir) => `APP_LAYERS in ${HERE} names ${dir}, which holds no package.json: remove or rename it`);
    expect(stale).toEqual([]);
  });

  it('has no arrow up: a package depends on and imports only lower floors (packages/: their own too)', () => {
    const wrong: string[] = [];
    for (const pkg of PACKAGES) {
      const floor = layerOf(pkg.dir);
      if (floor === undefined) continue;
      // What it uses, and where: package.json for a declared dependency, the files for an import.
      const where = new Map<string, Set<string>>();
      const note = (name: string, at: string) => where.set(name, (where.get(name) ?? new Set()).add(at));
      for (const name of Object.keys(pkg.deps)) note(name, `${pkg.dir}/package.json`);
      for (const file of filesOf(pkg.dir)) {
        for (const specifier of specifiersOf(file)) {
          const name = /^@svc\/[a-z0-9-]+/.exec(specifier)?.[0];
          if (name) note(name, file);
        }
      }
      for (const [name, at] of where) {
        const used = BY_NAME.get(name);
        if (!used || used === pkg) continue;
        const usedFloor = layerOf(used.dir);
        if (usedFloor === undefined) continue;
        const bothGround = floor === 0 && usedFloor === 0;
        if (usedFloor < floor || bothGround) continue;
        wrong.push(
          `${pkg.dir} (floor ${floor}) uses ${used.dir} (floor ${usedFloor}) in ${[...at].sort().join(', ')}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** The package's files that ship (tests aside) and which of them each imports. */
function fileGraph(dir: string): Graph {
  const files = filesOf(dir).filter((f) => !isTest(f));
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = specifiersOf(file)
      .map((s) => resolveRelative(file, s, known))
      .filter((t): t is string => t !== undefined);
    graph.set(file, new Set(targets));
  }
  return graph;
}

const GRAPHS = PACKAGES.map((p) => ({ pkg: p, graph: fileGraph(p.dir) }));

describe('circles', () => {
  it('reads the imports between files (the resolver finds them)', () => {
    const edges = GRAPHS.reduce((n, { graph }) => n + [...graph.values()].reduce((m, s) => m + s.size, 0), 0);
    expect(edges).toBeGreaterThan(1000);
  });

  it('has no circle among the files of one package (tests aside)', () => {
    const found = GRAPHS.flatMap(({ graph }) =>
      circles(graph).map((circle) => {
        const round = wayRound(graph, circle).join(' -> ');
        return circle.length > round.split(' -> ').length - 1
          ? `${round} (the circle holds ${circle.length} files: ${circle.join(', ')})`
          : round;
      }),
    );
    expect(found).toEqual([]);
  });

  it("has no circle among the top-level folders of a package's src/", () => {
    const found: string[] = [];
    for (const { pkg, graph } of GRAPHS) {
      const src = `${pkg.dir}/src/`;
      const folderOf = (file: string) => {
        const rest = file.startsWith(src) ? file.slice(src.length) : '';
        return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : undefined;
      };
      // Folder to folder, and for each arrow the first file pair that draws it.
      const folders: Graph = new Map();
      const example = new Map<string, string>();
      for (const [file, targets] of graph) {
        const from = folderOf(file);
        if (!from) continue;
        for (const target of targets) {
          const to = folderOf(target);
          if (!to || to === from) continue;
          folders.set(from, (folders.get(from) ?? new Set()).add(to));
          folders.set(to, folders.get(to) ?? new Set());
          if (!example.has(`${from} ${to}`)) example.set(`${from} ${to}`, `${file} imports ${target}`);
        }
      }
      for (const circle of circles(folders)) {
        const round = wayRound(folders, circle);
        const arrows = round
          .slice(1)
          .map((to, i) => `${round[i]}/ -> ${to}/ (${example.get(`${round[i]} ${to}`)})`);
        found.push(`${src}: ${arrows.join('; ')}`);
      }
    }
    expect(found).toEqual([]);
  });
});
