// Text from ingest is attacker-controlled: the stack's one sanitizer lives in @svc/tool-kit, so
// every service that returns such text (the core, recall) bounds and cleans it the same way.
export {
  FIELD_LIMITS,
  sanitizeAttributes,
  sanitizeOptional,
  sanitizeText,
  TRUNCATION_MARK,
} from '@svc/tool-kit';
