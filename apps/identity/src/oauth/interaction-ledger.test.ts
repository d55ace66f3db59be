import { InteractionLedger } from './interaction-ledger';

const NOW = 1_000_000_000;
const TTL = 600_000;

describe('InteractionLedger', () => {
  it('holds at most perAddress places an address and total in all, until they end or expire', () => {
    const ledger = new InteractionLedger({ perAddress: 2, total: 3 }, TTL);
    const a1 = ledger.admit('a', NOW);
    const a2 = ledger.admit('a', NOW + 1);
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(ledger.admit('a', NOW + 2)).toEqual({ ok: false, scope: 'address', retryAfterMs: TTL - 2 });
    expect(ledger.admit('b', NOW).ok).toBe(true);
    expect(ledger.admit('c', NOW)).toMatchObject({ ok: false, scope: 'total' });
    if (!a1.ok) throw new Error('admitted');
    ledger.confirm(a1.place, 'uid-1');
    ledger.end('uid-1');
    expect(ledger.held('a')).toBe(1);
    expect(ledger.admit('c', NOW).ok).toBe(true);
    // Ten minutes on, every place has run out.
    expect(ledger.admit('a', NOW + TTL + 2).ok).toBe(true);
    expect(ledger.held()).toBe(1);
  });

  it('gives back a place never confirmed, and keeps a confirmed one', () => {
    const ledger = new InteractionLedger({ perAddress: 1, total: 10 }, TTL);
    const first = ledger.admit('a', NOW);
    if (!first.ok) throw new Error('admitted');
    ledger.release(first.place);
    const second = ledger.admit('a', NOW);
    if (!second.ok) throw new Error('admitted');
    ledger.confirm(second.place, 'uid');
    ledger.release(second.place);
    expect(ledger.admit('a', NOW).ok).toBe(false);
    // A resume that asks again counts its new interaction without a start.
    ledger.end('uid');
    ledger.track('a', 'uid-2', NOW);
    expect(ledger.held('a')).toBe(1);
  });
});
