// `node deploy/assemble-app.mjs <app> <root>`: what one container image holds, assembled from this
// workspace into <root> (the image's /app), the same way in the Dockerfile and in the compose
// topology test (apps/self-hosting):
//
//   <root>/apps/<app>/dist/          the app's esbuild bundles (`pnpm build` of the app)
//   <root>/apps/<app>/static/        files the app serves as they are, when it has them (the
//                                    console: it finds them at ../static/ from its bundle)
//   <root>/apps/<app>/package.json   only the npm packages the bundles import at run time
//   <root>/apps/<app>/node_modules/  those, at the versions of this workspace's lockfile
//   <root>/deploy/healthcheck.mjs    the HEALTHCHECK probe; deploy/bin/svc beside the admin CLI
//
// The layout mirrors the repository, so an image runs `node apps/<app>/dist/main.js` from /app as
// a checkout runs it from the repository root. Run from the repository root after `pnpm install`.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Imported by a bundle, yet never installed in an image, and why. */
const LEFT_OUT = {
  // The embedded engine is a 540 MB library; images run on a ClickHouse server (SVC_CLICKHOUSE_URL)
  // and packages/clickhouse loads chdb only when an embedded client is opened.
  chdb: 'images connect to a ClickHouse server',
};

const [app, rootArg] = process.argv.slice(2);
if (!app || !rootArg) {
  console.error('usage: node deploy/assemble-app.mjs <app, e.g. identity> <output root>');
  process.exit(2);
}
const repo = resolve(import.meta.dirname, '..');
const appDir = join(repo, 'apps', app);
if (!existsSync(join(appDir, 'package.json'))) {
  console.error(`assemble-app: no app "${app}" (apps/${app}/package.json)`);
  process.exit(2);
}
const root = resolve(rootArg);
const pkgName = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')).name;
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

// 1. The bundles, and the packages they import (scripts/build-app.mjs writes <bundle>.externals.json).
run('pnpm', ['--silent', '--filter', pkgName, 'run', 'build'], repo);
const dist = join(appDir, 'dist');
const externals = new Set(
  readdirSync(dist)
    .filter((f) => f.endsWith('.externals.json'))
    .flatMap((f) => JSON.parse(readFileSync(join(dist, f), 'utf8'))),
);

// 2. `pnpm deploy` writes the app's production dependencies pinned as in pnpm-lock.yaml; of those
// only what the bundles import is kept (the workspace packages are inside the bundles already).
const staging = mkdtempSync(join(tmpdir(), `svc-assemble-${app}-`));
try {
  run(
    'pnpm',
    ['--filter', pkgName, 'deploy', '--prod', '--config.inject-workspace-packages=true', staging],
    repo,
  );
  const deployed = JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8'));
  const dependencies = {};
  for (const name of [...externals].sort()) {
    if (name in LEFT_OUT) continue;
    const version = deployed.dependencies?.[name];
    if (!version)
      throw new Error(
        `apps/${app}: a bundle imports "${name}", which is not a dependency in its package.json`,
      );
    dependencies[name] = version;
  }
  const target = join(root, 'apps', app);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const manifest = { name: pkgName, version: deployed.version, private: true, type: 'module', dependencies };
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(staging, 'pnpm-lock.yaml'), join(target, 'pnpm-lock.yaml'));
  // Offline: every package is in the store the workspace install filled; the lockfile keeps the
  // versions and pnpm drops what the smaller manifest no longer needs.
  run(
    'pnpm',
    ['install', '--prod', '--offline', '--no-frozen-lockfile', '--ignore-scripts', '--reporter=silent'],
    target,
  );
  cpSync(dist, join(target, 'dist'), {
    recursive: true,
    filter: (src) => !src.endsWith('.externals.json'),
  });
  if (existsSync(join(appDir, 'static')))
    cpSync(join(appDir, 'static'), join(target, 'static'), { recursive: true });
} finally {
  rmSync(staging, { recursive: true, force: true });
}

// 3. What every image runs beside the app: its health probe, and the admin CLI where it is built.
mkdirSync(join(root, 'deploy'), { recursive: true });
cpSync(join(repo, 'deploy', 'healthcheck.mjs'), join(root, 'deploy', 'healthcheck.mjs'));
if (existsSync(join(dist, 'svc.js'))) {
  mkdirSync(join(root, 'deploy', 'bin'), { recursive: true });
  cpSync(join(repo, 'deploy', 'bin', 'svc'), join(root, 'deploy', 'bin', 'svc'));
  chmodSync(join(root, 'deploy', 'bin', 'svc'), 0o755);
}
