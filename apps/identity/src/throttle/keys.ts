import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

// What the throttle counters are kept under. Accounts are the normalized email, whether or not a
// user has it (an unknown email is throttled exactly as a known one: no account enumeration).
// Addresses: IPv4 as is (an IPv4-mapped IPv6 address is its IPv4 one), IPv6 by its /64 prefix, the
// smallest block a single host is commonly given (one host must not get 2^64 fresh addresses).
// The store holds digests only, and logs name an account by a fingerprint, never by its email.

/** The address a throttle counts under. */
export function throttleAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return address;
}

/** The eight groups of an IPv6 address, `::` expanded (a zone index dropped). */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((g) =>
    g.replace(/^0+(?=.)/, ''),
  );
}

const digest = (domain: string, value: string) =>
  createHash('sha256').update(`svc-throttle-${domain}:${value}`, 'utf8').digest('hex');

export interface ThrottleKeys {
  pair: string;
  account: string;
  address: string;
}

/** The counters' keys for an account (normalized email) and a client address. */
export function throttleKeys(account: string, address: string): ThrottleKeys {
  const where = throttleAddress(address);
  return {
    pair: digest('pair', `${account}\n${where}`),
    account: digest('account', account),
    address: digest('address', where),
  };
}

/** Names an account in security logs without its email. */
export const accountFingerprint = (account: string): string =>
  `acct_${digest('fingerprint', account).slice(0, 16)}`;
