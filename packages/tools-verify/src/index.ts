export {
  CLAIM_FORMS,
  type Claim,
  type Comparison,
  EXPECTATION_FORMS,
  type Expectation,
  GRAMMAR_NOTE,
  type Grade,
  parseClaim,
  parseExpectations,
} from './grammar';
