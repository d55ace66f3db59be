import { sanitizeText } from '@svc/tool-kit';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { CRASH_LIMITS } from './crash-rows';

export interface SignatureHistory {
  first_seen: string;
  last_seen: string;
  first_app_version: string;
  last_app_version: string;
}

/**
 * First and last crash of each signature over every stored crash (not only a window; like
 * crash.recurrence's last_seen, a crash from a device clock ahead of ours counts as stored), with
 * their app versions: where an issue appeared and where it was last seen. Ties in time go to the
 * smallest version for the first crash and the largest for the last, so answers are stable. A
 * re-sent event repeats the same values, so copies change nothing. Read from the projection
 * p_signature_history (migration 14): keep these aggregates identical to it.
 */
export const SIGNATURE_HISTORY_SQL = `SELECT signature,
    toUnixTimestamp64Milli(min(timestamp)) AS first_ms,
    toUnixTimestamp64Milli(max(timestamp)) AS last_ms,
    argMin(app_version, (timestamp, app_version)) AS first_version,
    argMax(app_version, (timestamp, app_version)) AS last_version
  FROM crashes
  WHERE project_id = {project_id:String} AND signature IN {signatures:Array(String)}
  GROUP BY signature`;

export async function signatureHistories(
  ctx: CoreToolContext,
  signatures: readonly string[],
): Promise<Map<string, SignatureHistory>> {
  const out = new Map<string, SignatureHistory>();
  if (signatures.length === 0) return out;
  const rows = await ctx.ch.query<{
    signature: string;
    first_ms: string;
    last_ms: string;
    first_version: string;
    last_version: string;
  }>(
    SIGNATURE_HISTORY_SQL,
    { project_id: ctx.projectId, signatures: [...signatures] },
    { signal: ctx.signal },
  );
  for (const r of rows) out.set(r.signature, historyOf(r));
  if (out.size < signatures.length) await addNotUtf8(ctx, signatures, out);
  return out;
}

interface HistoryRow {
  first_ms: string;
  last_ms: string;
  first_version: string;
  last_version: string;
}

function historyOf(r: HistoryRow): SignatureHistory {
  return {
    first_seen: isoFromMs(r.first_ms),
    last_seen: isoFromMs(r.last_ms),
    first_app_version: sanitizeText(r.first_version, CRASH_LIMITS.shortText),
    last_app_version: sanitizeText(r.last_version, CRASH_LIMITS.shortText),
  };
}

/**
 * A stored signature that is not UTF-8 (ingest never writes one) comes back with U+FFFD in place
 * of its bad bytes, and looking that text up finds nothing: such signatures are read by their
 * bytes instead, and matched by the text they decode to. Only runs when a lookup came back short.
 */
async function addNotUtf8(
  ctx: CoreToolContext,
  signatures: readonly string[],
  out: Map<string, SignatureHistory>,
): Promise<void> {
  const missing = new Set(signatures.filter((s) => !out.has(s)));
  const rows = await ctx.ch.query<HistoryRow & { hex_signature: string }>(
    `SELECT hex(signature) AS hex_signature,
        toUnixTimestamp64Milli(min(timestamp)) AS first_ms,
        toUnixTimestamp64Milli(max(timestamp)) AS last_ms,
        argMin(app_version, (timestamp, app_version)) AS first_version,
        argMax(app_version, (timestamp, app_version)) AS last_version
      FROM crashes
      WHERE project_id = {project_id:String} AND NOT isValidUTF8(signature)
      GROUP BY signature`,
    { project_id: ctx.projectId },
    { signal: ctx.signal },
  );
  for (const r of rows) {
    const text = Buffer.from(r.hex_signature, 'hex').toString('utf8');
    if (missing.has(text) && !out.has(text)) out.set(text, historyOf(r));
  }
}
