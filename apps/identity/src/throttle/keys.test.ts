import { accountFingerprint, throttleAddress, throttleKeys } from './keys';

describe('throttleAddress', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s counts as %s', (address, expected) => {
    expect(throttleAddress(address)).toBe(expected);
  });
});

describe('throttleKeys', () => {
  it('keys a pair by account and address, and holds neither in clear', () => {
    const a = throttleKeys('a@x.test', '192.0.2.1');
    expect(throttleKeys('a@x.test', '::ffff:192.0.2.1')).toEqual(a);
    expect(throttleKeys('b@x.test', '192.0.2.1').address).toBe(a.address);
    expect(throttleKeys('b@x.test', '192.0.2.1').pair).not.toBe(a.pair);
    expect(throttleKeys('a@x.test', '192.0.2.2').account).toBe(a.account);
    expect(JSON.stringify(a)).not.toMatch(/a@x|192\.0/);
    expect(accountFingerprint('a@x.test')).toMatch(/^acct_[0-9a-f]{16}$/);
  });
});
