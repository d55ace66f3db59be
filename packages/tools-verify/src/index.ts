export { closestClaimForms } from './closest-forms';
export {
  CLAIM_FORM_OF,
  CLAIM_FORMS,
  type Claim,
  type Comparison,
  EXPECTATION_FORMS,
  type Expectation,
  expectationParts,
  GRAMMAR_NOTE,
  type Grade,
  parseClaim,
  parseExpectations,
} from './grammar';
export { verifyTools } from './toolset';
export { type EvidenceStep, evidenceStep, verdict } from './verdict';
export { verifyRun, verifyRunInput, verifyRunOutput } from './verify-run';
export {
  VERIFY_TRACES_MAX,
  verifyRunSession,
  verifyRunSessionInput,
  verifyRunSessionOutput,
} from './verify-run-session';
