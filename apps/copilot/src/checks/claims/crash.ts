import { compareVersions, count } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, EVIDENCE_LIMIT, type Finding, inconclusive } from '../finding';

type Recurrence = ClaimOf<'crash_recurrence'>;

export async function recurrenceSinceDate(
  claim: Recurrence,
  date: string,
  evidence: Evidence,
): Promise<Finding> {
  const r = await evidence.ask<{
    recurred: boolean;
    count_since: number;
    first_since: string | null;
    last_seen: string | null;
    total: number;
  }>('crash.recurrence', { signature: claim.signature, since: date }, (a) =>
    a.total === 0
      ? `No event of signature ${claim.signature} is stored.`
      : `${a.count_since} of ${a.total} events of ${claim.signature} are after ${date}` +
        (a.first_since ? ` (first ${a.first_since}, last ${a.last_seen})` : ` (last ${a.last_seen})`) +
        '.',
  );
  if (r.total === 0)
    return inconclusive(
      `No crash with signature ${claim.signature} is stored, so a fixed issue cannot be told from an unknown one.`,
    );
  return decided(
    r.recurred === claim.recurred,
    r.recurred
      ? `The issue recurred: ${count(r.count_since, 'event')} after ${date}, the first at ${r.first_since}.`
      : `No event of the issue after ${date}; the last was at ${r.last_seen}.`,
  );
}

interface CrashItem {
  event_id: string;
  timestamp: string;
  app_version: string;
}

export async function recurrenceSinceVersion(
  claim: Recurrence,
  version: string,
  evidence: Evidence,
): Promise<Finding> {
  // "After version v" counts v itself: a crash in the fix release means the fix did not hold.
  const later = (items: CrashItem[]) => items.filter((c) => compareVersions(c.app_version, version) >= 0);
  const r = await evidence.ask<{ items: CrashItem[]; has_more: boolean }>(
    'crash.by_signature',
    { signature: claim.signature, limit: EVIDENCE_LIMIT },
    (a) => {
      const hits = later(a.items);
      const versions = [...new Set(hits.map((c) => c.app_version))].sort(compareVersions);
      return a.items.length === 0
        ? `No event of signature ${claim.signature} is stored.`
        : `Of the ${a.has_more ? 'newest ' : ''}${count(a.items.length, 'event')}, ${hits.length} ${hits.length === 1 ? 'is' : 'are'} in version ${version} or later` +
            (hits.length > 0
              ? ` (${versions.join(', ')}; newest ${hits[0]!.event_id} at ${hits[0]!.timestamp})`
              : '') +
            '.';
    },
  );
  if (r.items.length === 0)
    return inconclusive(
      `No crash with signature ${claim.signature} is stored, so a fixed issue cannot be told from an unknown one.`,
    );
  const hits = later(r.items);
  if (hits.length > 0)
    return decided(
      claim.recurred,
      `The issue recurred in version ${version} or later: ${count(hits.length, 'event')}, the newest in ${hits[0]!.app_version} at ${hits[0]!.timestamp}.`,
    );
  if (r.has_more)
    return inconclusive(
      `None of the newest ${r.items.length} events is in version ${version} or later, but older events were not read.`,
    );
  return decided(
    !claim.recurred,
    `All ${r.items.length} events of the issue are from versions before ${version}.`,
  );
}
