export { verifyTools } from './toolset';
export { type EvidenceStep, evidenceStep, verdict } from './verdict';
export { verifyRun, verifyRunInput, verifyRunOutput } from './verify-run';
export {
  VERIFY_TRACES_MAX,
  verifyRunSession,
  verifyRunSessionInput,
  verifyRunSessionOutput,
} from './verify-run-session';
