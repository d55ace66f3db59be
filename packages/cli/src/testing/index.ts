// What other packages' tests use to run svc-cli against a real core (apps/sdk-e2e): the CLI in
// process, and the build outputs it uploads. Not published: the tarball's exports name only
// package.json (publishConfig.exports).
export {
  breakpadSym,
  r8Mapping,
  type SymFunction,
  type WebBundle,
  webBundle,
  writeFile,
} from './build-outputs';
export { elf32, gccSharedLibrary } from './elf-files';
export { CPU, fatMachO, type ThinSpec, thinMachO, uuidText } from './mach-o-files';
export {
  expectedAt,
  FUNCTION_MAPS,
  HERMES,
  hermesMap,
  METRO,
  METRO_SOURCES,
  type MetroEntry,
  metroMap,
  UNMAPPED_OFFSET,
} from './react-native-maps';
export { type CliRun, cli, jsonLines } from './run-in-process';
