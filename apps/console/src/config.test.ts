import { loadConsoleConfig } from './config';
import { servesLoopback } from './wiring';

const SECRET = 'a-long-enough-internal-secret';

describe('console config', () => {
  it('trusts no proxy by default, and takes addresses, prefixes and range names', () => {
    expect(loadConsoleConfig({ SVC_INTERNAL_SECRET: SECRET }).trustedProxies).toEqual([]);
    expect(
      loadConsoleConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_CONSOLE_TRUSTED_PROXIES: ' 10.0.0.5, 172.16.0.0/12 ,loopback,fd00::/8',
      }).trustedProxies,
    ).toEqual(['10.0.0.5', '172.16.0.0/12', 'loopback', 'fd00::/8']);
  });

  it.each(['proxy.internal', '10.0.0.0/33', '10.0.0.0/8/1', '*'])(
    'refuses %s, naming the variable',
    (value) => {
      expect(() =>
        loadConsoleConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_CONSOLE_TRUSTED_PROXIES: value }),
      ).toThrow(/SVC_CONSOLE_TRUSTED_PROXIES/);
    },
  );
});

describe('servesLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['::', true],
    ['::1', true],
    ['localhost', true],
    ['192.0.2.10', false],
  ])('%s: %s', (host, expected) => {
    expect(servesLoopback(host)).toBe(expected);
  });
});
