import type { Claim } from '../grammar/grammar';
import { recurrenceSinceDate, recurrenceSinceVersion } from './claims/crash';
import { funnel } from './claims/funnel';
import { metricPercentile } from './claims/metric';
import { operation } from './claims/operation';
import { release } from './claims/release';
import { userCrashed } from './claims/user';
import type { Evidence } from './evidence';
import { type Finding, inconclusive } from './finding';

export interface Access {
  /** The org has vis_trace: span data may be used as evidence. */
  traces: boolean;
}

/** Checks one parsed claim by calling the core's tools; every call lands in `evidence`. */
export function checkClaim(claim: Claim, evidence: Evidence, access: Access): Promise<Finding> {
  switch (claim.kind) {
    case 'crash_recurrence':
      return 'date' in claim.since
        ? recurrenceSinceDate(claim, claim.since.date, evidence)
        : recurrenceSinceVersion(claim, claim.since.version, evidence);
    case 'operation_latency':
    case 'operation_error_rate':
      return access.traces
        ? operation(claim, evidence)
        : Promise.resolve(
            inconclusive(
              'Operation latency and error rates come from traces, and this organization has no trace access (vis_trace).',
            ),
          );
    case 'metric_percentile':
      return metricPercentile(claim, evidence);
    case 'release_crash_free':
    case 'release_grade':
      return release(claim, evidence);
    case 'funnel_conversion':
      return funnel(claim, evidence);
    case 'user_crashed':
      return userCrashed(claim, evidence);
  }
}
