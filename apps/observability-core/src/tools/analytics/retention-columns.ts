import type { DayOffsetColumn } from '@svc/tools-analytics';
import { reported } from '../precision';
import type { Day0Counts } from './retention-counts';

/**
 * Day-offset columns of a set of day-0 groups: retained adds up the groups' active users; a
 * group's users are all eligible for offset d once day0 + d <= today, else none of them.
 */
export function dayOffsetColumns(
  groups: readonly Day0Counts[],
  today: number,
  maxDay: number,
): DayOffsetColumn[] {
  const out: DayOffsetColumn[] = [];
  for (let day = 0; day <= maxDay; day++) {
    let retained = 0;
    let eligible = 0;
    for (const g of groups) {
      retained += g.retained[day] ?? 0;
      if (g.day0 + day <= today) eligible += g.size;
    }
    out.push({ day, retained, eligible, rate: eligible === 0 ? null : reported(retained / eligible) });
  }
  return out;
}
