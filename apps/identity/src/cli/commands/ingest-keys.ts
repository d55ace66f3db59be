import { type Command, required } from '../command';

const originsText = (origins: readonly string[]) =>
  origins.length > 0
    ? `allowed origins: ${origins.join(', ')}`
    : 'no allowed origins (no browser may send with it)';

export const ingestKeyCreate: Command = {
  name: 'ingest-key create',
  positionals: 2,
  async run({ values: v }, call) {
    const r = await call<{ key_id: string; dsn: string; allowed_origins: string[] }>(
      'POST',
      '/internal/v1/admin/ingest-keys',
      { project_id: required(v.project, '--project'), ...(v.origin ? { allowed_origins: v.origin } : {}) },
    );
    const origins = r.allowed_origins.length > 0 ? `\n${originsText(r.allowed_origins)}` : '';
    return { json: r, text: `ingest key ${r.key_id}\nDSN: ${r.dsn}${origins}` };
  },
};

export const ingestKeyRevoke: Command = {
  name: 'ingest-key revoke',
  positionals: 3,
  async run(args, call) {
    const id = args.positionals[2]!;
    const r = await call<{ key_id: string; project_id: string; active: boolean }>(
      'POST',
      `/internal/v1/admin/ingest-keys/${encodeURIComponent(id)}/revoke`,
    );
    return {
      json: r,
      text: `ingest key ${r.key_id} of project ${r.project_id} revoked (the core refuses it within 30 s)`,
    };
  },
};

/** Replaces a key's allowed web origins: no --origin leaves none (no browser may send with it). */
export const ingestKeyOrigins: Command = {
  name: 'ingest-key origins',
  positionals: 3,
  async run(args, call) {
    const id = args.positionals[2]!;
    const r = await call<{ key_id: string; allowed_origins: string[] }>(
      'PUT',
      `/internal/v1/admin/ingest-keys/${encodeURIComponent(id)}/allowed-origins`,
      { allowed_origins: args.values.origin ?? [] },
    );
    return { json: r, text: `ingest key ${r.key_id}: ${originsText(r.allowed_origins)}` };
  },
};
