import type { Configuration } from 'oidc-provider';
import { Agent, fetch as undiciFetch } from 'undici';

type Fetch = NonNullable<Configuration['fetch']>;

/**
 * How Client ID Metadata Documents are fetched. In production, as oidc-provider sets it up: its
 * dispatcher refuses sockets to private, loopback and other special-use addresses (SSRF), with a
 * 2.5 s timeout and the body limit of the configuration. With a trusted CA (tests only), the
 * documents come from a loopback https server whose certificate that CA signed.
 */
export function clientDocumentFetch(trustedCa: string | undefined): Fetch {
  if (trustedCa === undefined) return ((url, options) => globalThis.fetch(url, options)) as Fetch;
  const agent = new Agent({ connect: { ca: trustedCa } });
  return ((url: URL | string, options: Record<string, unknown>) =>
    undiciFetch(url, { ...options, dispatcher: agent } as never)) as unknown as Fetch;
}
