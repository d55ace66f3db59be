import { busyHoldings } from '@svc/metrics';
import { CONDITION_CEILING_MS } from './wait-on-progress';

/**
 * Nothing held forever: waits until every holding gauge a stack's metrics port lists (answer
 * budget, calls in progress, sessions and streams in use, the core's scheduler, recall's read
 * slots, shed projects...) reads 0 again, and answers those that did not within the ceiling of a
 * condition; {} when everything taken was given back. Run after a suite's faults.
 */
export async function holdingsIdle(metricsUrl: string): Promise<Record<string, number>> {
  const read = async () => busyHoldings(await (await fetch(metricsUrl)).text());
  const started = Date.now();
  let busy = await read();
  while (Object.keys(busy).length > 0 && Date.now() - started < CONDITION_CEILING_MS) {
    await new Promise((r) => setTimeout(r, 200));
    busy = await read();
  }
  return busy;
}
