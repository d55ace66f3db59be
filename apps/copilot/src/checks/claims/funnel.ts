import { COMPARISON_WORDS, holds, pct } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, type Finding, inconclusive } from '../finding';

type FunnelClaim = ClaimOf<'funnel_conversion'>;
interface FunnelStep {
  event_name: string;
  users: number;
  conversion_from_previous: number | null;
}

export async function funnel(claim: FunnelClaim, evidence: Evidence): Promise<Finding> {
  const a = await evidence.ask<{ window_hours: number; steps: FunnelStep[] }>(
    'analytics.funnel',
    { steps: [claim.from, claim.to], days: claim.days },
    (answer) => {
      const [first, second] = answer.steps;
      return first!.users === 0
        ? `No user did "${claim.from}" in the last ${claim.days} days.`
        : `${second!.users} of ${first!.users} users who did "${claim.from}" did "${claim.to}" within ${answer.window_hours} h: ${pct(second!.conversion_from_previous!)}.`;
    },
  );
  const second = a.steps[1]!;
  if (second.conversion_from_previous === null)
    return inconclusive(`No user did "${claim.from}" in the last ${claim.days} days.`);
  const ok = holds(second.conversion_from_previous, claim.comparison, claim.rate);
  return decided(
    ok,
    `Conversion from "${claim.from}" to "${claim.to}" is ${pct(second.conversion_from_previous)}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${pct(claim.rate)}.`,
  );
}
