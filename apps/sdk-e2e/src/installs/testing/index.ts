// The install proofs' helpers: tarballs of every public package (packed once per jest run by
// global-setup.ts), throwaway apps that install them with npm outside the repository, and their
// programs run with plain node.
export { type AppProcess, startAppProcess } from './app-process';
export { CommandError, type CommandResult, outsideEnv, REPOSITORY_ROOT, runCommand } from './run-command';
export {
  type PackedManifest,
  type PackedPackage,
  type PackedSet,
  packed,
  packedPackages,
  TARBALLS_ENV,
  tarballDependencies,
} from './tarballs';
export { type AppSpec, createApp, type ThrowawayApp, versionHere } from './throwaway-app';
