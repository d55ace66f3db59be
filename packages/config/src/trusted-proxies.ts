import { isIP } from 'node:net';
import { z } from 'zod';

/** Express's names for address ranges, usable in the *_TRUSTED_PROXIES variables. */
const RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, an address/prefix (CIDR) or one of the range names. */
function isProxyAddress(value: string): boolean {
  if (RANGE_NAMES.includes(value)) return true;
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Reverse proxies whose X-Forwarded-For names the client (its address is what throttling counts),
 * comma-separated, as express's `trust proxy` takes them. Empty: nobody's; the socket's address is
 * the client's.
 */
export const trustedProxies = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  )
  .pipe(
    z.array(
      z.string().refine(isProxyAddress, {
        error: 'each entry must be an IP address, an address/prefix or loopback, linklocal, uniquelocal',
      }),
    ),
  );
