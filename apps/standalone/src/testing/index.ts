// What other packages' tests and benchmarks use of the standalone: the spawned one-process stack,
// waits on progress (not on the clock), commands run to their end, and the hostile inputs it is measured against.
export { holdingsIdle } from './holdings';
export { RunError, type RunOptions, runToEnd } from './run-to-end';
export { type ReadyInfo, type SpawnedStack, spawnStack } from './spawned-stack';
export { buildTestBundles, removeTestBundles } from './test-bundles';
export {
  CEILING_MS,
  CONDITION_CEILING_MS,
  eventually,
  type ProgressWaitOptions,
  STACK_SETUP_TIMEOUT_MS,
  STALL_MS,
  WaitError,
  waitOnProgress,
} from './wait-on-progress';
export {
  type Answer,
  callTool,
  type HostileTarget,
  prepareWorstInputs,
  RECALL_FILES,
  signedFetch,
  uploadRecallFile,
  WORST_INPUTS,
  type WorstInput,
} from './worst-inputs';
