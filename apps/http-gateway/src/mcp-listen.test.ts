import { RateLimitedError } from '@svc/errors';
import { silentLogger } from '@svc/logger';
import { principal } from '@svc/tool-server/testing';
import { ListenStreams } from './mcp-listen';
import { SessionCapacityError } from './mcp-sessions';

// The gateway's side of modern listen streams: who each stream belongs to (an org's capability
// switch reaches that org's streams only), the caps, and revocation.

const limits = {
  maxSessions: 3,
  maxSessionsPerToken: 2,
  maxSessionsPerProject: 2,
  // Above the instance's: most principals here share one org, and the org's cap is tested with
  // the app (mcp-session-caps.test.ts).
  maxSessionsPerOrg: 4,
  idleMs: 60_000,
};

function open(streams: ListenStreams, who: ReturnType<typeof principal>, onEvent: () => void) {
  const abort = new AbortController();
  // The SDK subscribes to the bus while `serve` hands it the request: as it does here.
  const served = streams.serve(who, abort, async () => {
    streams.bus.subscribe(onEvent);
  });
  return { abort, served };
}

it("tells an org's capability switch to that org's streams only, a backend change to all", async () => {
  const streams = new ListenStreams(limits, () => 0, silentLogger);
  const heard: string[] = [];
  await open(streams, principal({ tokenId: 'tok_a', orgId: 'org_a', projectId: 'prj_a' }), () =>
    heard.push('a'),
  ).served;
  await open(streams, principal({ tokenId: 'tok_b', orgId: 'org_b', projectId: 'prj_b' }), () =>
    heard.push('b'),
  ).served;
  streams.toolListChanged('org_a');
  expect(heard).toEqual(['a']);
  streams.toolListChanged();
  expect(heard.sort()).toEqual(['a', 'a', 'b']);
});

it('refuses a stream over the token, project or instance cap and gives the place back when it ends', async () => {
  const streams = new ListenStreams(limits, () => 0, silentLogger);
  const a = principal({ tokenId: 'tok_a', projectId: 'prj_a' });
  const first = open(streams, a, () => {});
  await first.served;
  await open(streams, a, () => {}).served;
  await expect(open(streams, a, () => {}).served).rejects.toBeInstanceOf(RateLimitedError);
  await open(streams, principal({ tokenId: 'tok_b', projectId: 'prj_b' }), () => {}).served;
  await expect(
    open(streams, principal({ tokenId: 'tok_c', projectId: 'prj_c' }), () => {}).served,
  ).rejects.toBeInstanceOf(SessionCapacityError);
  expect(streams.size).toBe(3);
  first.abort.abort();
  expect(streams.size).toBe(2);
  await open(streams, principal({ tokenId: 'tok_c', projectId: 'prj_c' }), () => {}).served;
  expect(streams.size).toBe(3);
});

it("ends every stream of a revoked token and no other's", async () => {
  const streams = new ListenStreams(limits, () => 0, silentLogger);
  const mine = open(streams, principal({ tokenId: 'tok_a' }), () => {});
  const other = open(streams, principal({ tokenId: 'tok_b', projectId: 'prj_b' }), () => {});
  await Promise.all([mine.served, other.served]);
  expect(streams.closeByToken('tok_a')).toBe(1);
  expect(mine.abort.signal.aborted).toBe(true);
  expect(other.abort.signal.aborted).toBe(false);
  expect(streams.size).toBe(1);
});
