// What other packages' tests and benchmarks use of the standalone: the spawned one-process stack
// and the hostile inputs it is measured against.
export { type ReadyInfo, type SpawnedStack, spawnStack } from './spawned-stack';
export {
  type Answer,
  callTool,
  type HostileTarget,
  RECALL_FILES,
  signedFetch,
  uploadRecallFile,
  WORST_INPUTS,
  type WorstInput,
} from './worst-inputs';
