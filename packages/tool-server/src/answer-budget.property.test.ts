import { createNoopMetrics } from '@svc/metrics';
import fc from 'fast-check';
import { AnswerBudget, type AnswerBudgetOptions, type StartTimer } from './answer-budget';
import { CallHoldings } from './call-holdings';

// Random interleavings of what happens to large answers in a busy gateway: calls reserve bytes for
// answers of several projects and orgs; reservations are granted, released (once or twice), time
// out waiting, are aborted by their callers, or outlive the call they were for (the call ends first,
// as the executor's does on a timeout). Whatever the order, the budget never holds more than it
// may, no tenant holds more than its share, nobody waits while the budget is idle, and once every
// call has ended nothing is held and nobody waits.

const KB = 1024;
const OPTIONS: AnswerBudgetOptions = {
  totalBytes: 1024 * KB,
  smallBytes: 16 * KB,
  projectShare: 0.5,
  orgShare: 0.75,
  maxLarge: 4,
  maxWaiting: 6,
  maxWaitingPerProject: 3,
  maxWaitingPerOrg: 4,
  maxWaitMs: 1000,
};
const TENANTS = [
  { project: 'a1', org: 'org_a' },
  { project: 'a2', org: 'org_a' },
  { project: 'a3', org: 'org_a' },
  { project: 'b1', org: 'org_b' },
  { project: 'c1', org: null },
];
const SIZES = [8 * KB, 100 * KB, 300 * KB, 600 * KB, 1024 * KB, undefined];

type Action =
  | { kind: 'reserve'; tenant: number; size: number }
  | { kind: 'release'; call: number }
  | { kind: 'releaseTwice'; call: number }
  | { kind: 'abort'; call: number }
  | { kind: 'expire'; timer: number }
  | { kind: 'endCall'; call: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('reserve' as const),
    tenant: fc.nat(TENANTS.length - 1),
    size: fc.nat(SIZES.length - 1),
  }),
  fc.record({ kind: fc.constant('release' as const), call: fc.nat(50) }),
  fc.record({ kind: fc.constant('releaseTwice' as const), call: fc.nat(50) }),
  fc.record({ kind: fc.constant('abort' as const), call: fc.nat(50) }),
  fc.record({ kind: fc.constant('expire' as const), timer: fc.nat(50) }),
  fc.record({ kind: fc.constant('endCall' as const), call: fc.nat(50) }),
);

interface Call {
  tenant: (typeof TENANTS)[number];
  bytes: number;
  holdings: CallHoldings;
  abort: AbortController;
  state: 'waiting' | 'held' | 'refused' | 'over';
  release?: () => void;
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('AnswerBudget under random interleavings', () => {
  it('holds within its bounds, never waits while idle, and holds nothing once every call has ended', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 60 }), async (actions) => {
        const timers: { fire: () => void; cancelled: boolean }[] = [];
        const startTimer: StartTimer = (fire, _ms) => {
          const timer = { fire, cancelled: false };
          timers.push(timer);
          return () => {
            timer.cancelled = true;
          };
        };
        const budget = new AnswerBudget(OPTIONS, createNoopMetrics(), startTimer);
        const calls: Call[] = [];

        for (const a of actions) {
          if (a.kind === 'reserve') {
            const tenant = TENANTS[a.tenant]!;
            const size = SIZES[a.size];
            const call: Call = {
              tenant,
              bytes: Math.min(size ?? 1024 * KB, OPTIONS.totalBytes),
              holdings: new CallHoldings(),
              abort: new AbortController(),
              state: 'waiting',
            };
            calls.push(call);
            // As the executor does: the call's end and its caller both end the wait.
            budget.reserve(tenant, size, AbortSignal.any([call.holdings.signal, call.abort.signal])).then(
              (release) => {
                call.holdings.add(release);
                call.release = release;
                if (call.state === 'waiting') call.state = budget.counts(size) ? 'held' : 'over';
              },
              () => {
                if (call.state === 'waiting') call.state = 'refused';
              },
            );
          } else if (a.kind === 'release' || a.kind === 'releaseTwice') {
            const call = calls[a.call % Math.max(1, calls.length)];
            if (call?.state === 'held' && call.release) {
              call.release();
              if (a.kind === 'releaseTwice') call.release();
              call.state = 'over';
            }
          } else if (a.kind === 'abort') {
            calls[a.call % Math.max(1, calls.length)]?.abort.abort(new Error('caller left'));
          } else if (a.kind === 'expire') {
            const live = timers.filter((t) => !t.cancelled);
            const timer = live[a.timer % Math.max(1, live.length)];
            if (timer) {
              timer.cancelled = true;
              timer.fire();
            }
          } else {
            const call = calls[a.call % Math.max(1, calls.length)];
            if (call) {
              call.holdings.releaseAll();
              if (call.state === 'held') call.state = 'over';
            }
          }
          await flush();

          // Bounds: what is held is exactly what calls hold, within the budget and the shares.
          const held = calls.filter((c) => c.state === 'held');
          const bytes = held.reduce((sum, c) => sum + c.bytes, 0);
          expect(budget.heldBytes).toBe(bytes);
          expect(held.length).toBeLessThanOrEqual(OPTIONS.maxLarge);
          if (held.length > 1) expect(bytes).toBeLessThanOrEqual(OPTIONS.totalBytes);
          for (const [key, share] of [
            ['project', OPTIONS.projectShare],
            ['org', OPTIONS.orgShare],
          ] as const) {
            const byTenant = new Map<string, Call[]>();
            for (const c of held) {
              const id =
                key === 'project' ? c.tenant.project : (c.tenant.org ?? `project:${c.tenant.project}`);
              byTenant.set(id, [...(byTenant.get(id) ?? []), c]);
            }
            for (const mine of byTenant.values()) {
              if (mine.length === 1) continue;
              expect(mine.reduce((s, c) => s + c.bytes, 0)).toBeLessThanOrEqual(OPTIONS.totalBytes * share);
              expect(mine.length).toBeLessThanOrEqual(Math.floor(OPTIONS.maxLarge * share));
            }
          }
          expect(budget.waiting).toBe(calls.filter((c) => c.state === 'waiting').length);
          // Nobody waits while nothing is held: a waiter always fits an idle budget.
          if (budget.heldBytes === 0) expect(budget.waiting).toBe(0);
        }

        // Every call ends (answer, error, timeout or abort alike): nothing is held, nobody waits.
        for (const call of calls) call.holdings.releaseAll();
        await flush();
        expect(budget.heldBytes).toBe(0);
        expect(budget.waiting).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
