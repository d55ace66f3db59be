import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CommandResult, outsideEnv, runCommand } from './run-command';
import { tarballDependencies } from './tarballs';

// An app as a team has one: a folder in the system's temp dir (outside the repository, so nothing
// of the repository's node_modules is on its resolution path), its own package.json, the packed
// packages installed from their tarballs by npm, and registry packages beside them.

export interface AppSpec {
  /** For the folder's and package.json's name. */
  name: string;
  /** package.json's `type`: how .js files load (default: commonjs, as npm init writes). */
  type?: 'module' | 'commonjs';
  /** Public workspace packages, installed from this run's tarballs (their @svc dependencies too). */
  packages: readonly string[];
  /** Registry packages, name -> version (`versionHere` gives the one the repository tests with). */
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  /** Files to write before the install, path relative to the app -> content. */
  files?: Record<string, string>;
}

export interface ThrowawayApp {
  dir: string;
  /** npm install's output. */
  install: CommandResult;
  /** Runs a command in the app's folder with the app's environment (`outsideEnv`). */
  run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<CommandResult>;
  /** Writes a file into the app (folders created). */
  write(path: string, content: string): void;
  remove(): Promise<void>;
}

const here = createRequire(import.meta.url);

/**
 * The version of a registry package installed in this repository (sdk-e2e's dependencies), so a
 * throwaway app installs what the repository tests with, most likely from npm's cache.
 */
export function versionHere(name: string): string {
  return (here(`${name}/package.json`) as { version: string }).version;
}

/** `npm install` in a new folder of os.tmpdir(); rejects with npm's whole output when it fails. */
export async function createApp(spec: AppSpec): Promise<ThrowawayApp> {
  const dir = await mkdtemp(join(tmpdir(), `svc-app-${spec.name}-`));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  write(
    'package.json',
    `${JSON.stringify(
      {
        name: spec.name,
        version: '1.0.0',
        private: true,
        type: spec.type ?? 'commonjs',
        dependencies: { ...spec.dependencies, ...tarballDependencies(spec.packages) },
        devDependencies: spec.devDependencies ?? {},
      },
      null,
      2,
    )}\n`,
  );
  for (const [path, content] of Object.entries(spec.files ?? {})) write(path, content);
  const run = (command: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    runCommand(command, args, { cwd: dir, env: outsideEnv(env) });
  try {
    const install = await runCommand('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      env: outsideEnv(),
      what: `npm install of the throwaway app ${spec.name}`,
    });
    return { dir, install, run, write, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
