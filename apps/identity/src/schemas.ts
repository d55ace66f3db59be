import { z } from 'zod';
import { CONTROLLED_CAPABILITY_NAMES } from './store/orgs';

const name = z.string().trim().min(1).max(200);
const id = z.string().min(1).max(200);
const email = z.string().trim().toLowerCase().pipe(z.email().max(320));
const password = z.string().min(8).max(1024);
const days = z.number().int().min(1).max(3650);

export const capabilityName = z.enum(CONTROLLED_CAPABILITY_NAMES);

export const introspectBody = z.strictObject({ token: z.string().max(1000) });
export const sessionIntrospectBody = z.strictObject({
  session_token: z.string().max(1000),
  project_id: z.string().min(1).max(200),
});
export const invalidationAckBody = z.strictObject({
  subscriber_id: z.string().min(1).max(100),
  seq: z.number().int().min(0),
});

export const createOrgBody = z.strictObject({ name });
export const capabilityBody = z.strictObject({ enabled: z.boolean() });
export const createUserBody = z.strictObject({ email, password, org_id: id });
export const createProjectBody = z.strictObject({ name, org_id: id.optional() });
export const createTokenBody = z.strictObject({
  project_id: id.nullable(),
  name: name.optional(),
  days: days.default(90),
  /** Operator option for short-lived tokens (overrides days), e.g. CI jobs or expiry drills. */
  expires_in_seconds: z.number().int().min(1).max(86_400).optional(),
  user_id: id.optional(),
  scopes: z
    .array(z.string().regex(/^[a-z]+:[a-z]+$/))
    .min(1)
    .max(10)
    .default(['mcp:read']),
});
export const projectQuery = z.object({ project_id: id });
/** Ingest keys hold at most this many browser origins (docs/ingest.md, "Browsers (CORS)"). */
export const MAX_ALLOWED_ORIGINS = 20;

/**
 * An exact web origin as browsers send it in `Origin`: http(s), host, optional port; no path,
 * query, user, wildcard or trailing slash (the URL's own origin must be the string itself).
 */
function isWebOrigin(value: string): boolean {
  if (value.includes('*')) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

const webOrigin = z
  .string()
  .max(300)
  .refine(isWebOrigin, {
    error: (issue) =>
      `must be a web origin, scheme://host[:port] with no path and no wildcard (e.g. https://app.example.com), got ${JSON.stringify(String(issue.input).slice(0, 100))}`,
  });

// Repeats are dropped, the first place kept.
const allowedOrigins = z
  .array(webOrigin)
  .max(MAX_ALLOWED_ORIGINS)
  .transform((origins) => [...new Set(origins)]);

export const createIngestKeyBody = z.strictObject({
  project_id: id,
  allowed_origins: allowedOrigins.default([]),
});
/** The console's form: the project is in the path. */
export const consoleIngestKeyBody = z.strictObject({ allowed_origins: allowedOrigins.default([]) });
export const allowedOriginsBody = z.strictObject({ allowed_origins: allowedOrigins });
export const bootstrapBody = z.strictObject({
  org_name: name,
  project_name: name,
  user_email: email,
  user_password: password.optional(),
});

/** Without project_id: every project (docs/internal-api.md, "Audit checkpoints"). */
export const auditVerifyQuery = z.object({ project_id: id.optional() });

export const auditListQuery = z.object({
  project_id: id,
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after_seq: z.coerce.number().int().min(0).default(0),
});

export const consoleAuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before_seq: z.coerce.number().int().min(1).optional(),
});
/** Ids to name for a page of records: at most a page's worth (log.audit pages up to 1000). */
export const consoleNamesBody = z.strictObject({
  user_ids: z.array(z.string().min(1).max(200)).max(1000).default([]),
  token_ids: z.array(z.string().min(1).max(200)).max(1000).default([]),
});
export const consoleToolTokenBody = z.strictObject({
  session_token: z.string().max(1000),
  project_id: z.string().min(1).max(200),
});

export const loginBody = z.strictObject({ email, password: z.string().min(1).max(1024) });
export const stepUpBody = z.strictObject({ password: z.string().min(1).max(1024) });
export const consoleTokenBody = z.strictObject({ name, days: days.default(90) });
