import { callActorOf, internalSecretCheck } from './internal-auth';

const header = (actor: unknown) => (name: string) =>
  name === 'x-svc-actor' ? JSON.stringify(actor) : undefined;

describe('callActorOf', () => {
  it.each(['mcp', 'rest', 'stdio', 'console'])('reads an actor calling over %s', (transport) => {
    const actor = { token_id: 'tok_1', user_id: 'usr_1', transport };
    expect(callActorOf(header(actor))).toEqual(actor);
  });

  it("keeps the caller's org (a backend's per-org share), and reads an actor without one", () => {
    const actor = { token_id: 'tok_1', user_id: 'usr_1', org_id: 'org_1', transport: 'rest' };
    expect(callActorOf(header(actor))).toEqual(actor);
    expect(callActorOf(header({ ...actor, org_id: null }))).toEqual({ ...actor, org_id: null });
  });

  it('refuses a transport it does not know, and a missing header', () => {
    expect(() => callActorOf(header({ token_id: null, user_id: null, transport: 'fax' }))).toThrow(
      /X-Svc-Actor|x-svc-actor/,
    );
    expect(() => callActorOf(() => undefined)).toThrow(/x-svc-actor/i);
  });
});

describe('internalSecretCheck', () => {
  const refusal = internalSecretCheck('s'.repeat(32));

  it('accepts the shared secret and says why anything else is refused', () => {
    expect(refusal('s'.repeat(32))).toBeUndefined();
    expect(refusal(undefined)).toBe('missing_internal_secret');
    expect(refusal('')).toBe('wrong_internal_secret');
    expect(refusal('s'.repeat(31))).toBe('wrong_internal_secret');
    expect(refusal('t'.repeat(32))).toBe('wrong_internal_secret');
  });
});
