/** The ports this process listens on; 0 where the system picks one (the URL is unknown in advance). */
export interface StandalonePorts {
  gateway: number;
  identity: number;
  console: number;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The addresses MCP clients signing in with OAuth are given, for a stack in one process: each
 * public URL that is not set becomes `http://localhost:<the port it listens on>`. A client checks
 * that the resource and the authorization server it is told about belong to the server it
 * connected to, so with non-default ports the services' own defaults (8092, 8081, 8094) would send
 * it elsewhere. What is set wins (a proxy in front); a port of 0 leaves the service's default.
 */
export function oauthPublicUrls(
  env: Record<string, string | undefined>,
  ports: StandalonePorts,
): Record<string, string> {
  const local = (port: number, given: string | undefined) =>
    given?.trim() || (port === 0 ? undefined : `http://localhost:${port}`);
  const gateway = local(ports.gateway, env.SVC_PUBLIC_URL);
  const identity = local(ports.identity, env.SVC_IDENTITY_PUBLIC_URL);
  const consoleUrl = local(ports.console, env.SVC_CONSOLE_PUBLIC_URL);
  const issuer = env.SVC_OAUTH_ISSUER?.trim() || (identity ? `${trimSlash(identity)}/oauth` : undefined);
  return Object.fromEntries(
    Object.entries({
      SVC_PUBLIC_URL: gateway,
      SVC_IDENTITY_PUBLIC_URL: identity,
      SVC_CONSOLE_PUBLIC_URL: consoleUrl,
      SVC_OAUTH_ISSUER: issuer,
    }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
