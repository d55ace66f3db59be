import { join } from 'node:path';
import { ConfigError, findRepositoryRoot } from '@svc/config';
import { loadIdentityConfig } from './config';

const SECRET = 'a-secret-of-at-least-16-chars';

describe('identity config', () => {
  it('defaults to port 8081 and PGlite under <repository>/.data/identity', () => {
    const config = loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET });
    expect(config).toMatchObject({
      port: 8081,
      internalSecret: SECRET,
      database: { dataDir: join(findRepositoryRoot(process.cwd())!, '.data', 'identity') },
      ingestEndpoint: 'http://localhost:8080',
      logLevel: 'info',
    });
  });

  it('traces itself into SVC_SELF_TRACE_PROJECT through SVC_CORE_URL, and refuses a project without it', () => {
    expect(loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET }).selfTrace).toBeUndefined();
    expect(
      loadIdentityConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_SELF_TRACE_PROJECT: 'prj_stack',
        SVC_CORE_URL: 'http://core:8080',
      }).selfTrace,
    ).toEqual({ project: 'prj_stack', coreUrl: 'http://core:8080', sampleRate: 0 });
    // SVC_OBSERVABILITY_ENDPOINT is the public address of DSNs, not where identity sends its spans.
    expect(() =>
      loadIdentityConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_SELF_TRACE_PROJECT: 'prj_stack',
        SVC_OBSERVABILITY_ENDPOINT: 'http://core:8080',
      }),
    ).toThrow(/SVC_CORE_URL: is required when SVC_SELF_TRACE_PROJECT is set/);
  });

  it('takes the port from SVC_IDENTITY_PORT, else from SVC_IDENTITY_INTERNAL_URL', () => {
    expect(
      loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_INTERNAL_URL: 'http://id:9191' }).port,
    ).toBe(9191);
    expect(
      loadIdentityConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_IDENTITY_INTERNAL_URL: 'http://id:9191',
        SVC_IDENTITY_PORT: '7000',
      }).port,
    ).toBe(7000);
  });

  it('uses a PostgreSQL server when SVC_IDENTITY_DATABASE_URL is set, and SVC_DATA_DIR otherwise', () => {
    const url = 'postgres://u:p@db:5432/identity';
    expect(
      loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_DATABASE_URL: url }).database,
    ).toEqual({ url });
    expect(loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_DATA_DIR: '/var/svc' }).database).toEqual({
      dataDir: '/var/svc/identity',
    });
  });

  it('names the OAuth parties by their public URLs (non-default ports too): issuer, resource, consent page', () => {
    expect(loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET }).oauth).toEqual({
      issuer: 'http://localhost:8081/oauth',
      resource: 'http://localhost:8092/mcp',
      consoleUrl: 'http://localhost:8094',
      accessTokenTtlSeconds: 600,
    });
    // No public URL for identity: its own (listening) port, which follows SVC_IDENTITY_PORT.
    expect(loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_PORT: '9181' }).oauth.issuer).toBe(
      'http://localhost:9181/oauth',
    );
    expect(
      loadIdentityConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_IDENTITY_PUBLIC_URL: 'https://id.example.com/',
        SVC_PUBLIC_URL: 'https://mcp.example.com:8443/',
        SVC_CONSOLE_PUBLIC_URL: 'https://console.example.com',
        SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS: '30',
      }).oauth,
    ).toEqual({
      issuer: 'https://id.example.com/oauth',
      resource: 'https://mcp.example.com:8443/mcp',
      consoleUrl: 'https://console.example.com',
      accessTokenTtlSeconds: 30,
    });
  });

  it('keeps OAuth access tokens short-lived: 1 s to an hour', () => {
    for (const ttl of ['0', '3601', '1.5', 'soon']) {
      expect(() =>
        loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS: ttl }),
      ).toThrow(/SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS/);
    }
  });

  it('believes X-Forwarded-For only from the reverse proxies SVC_IDENTITY_TRUSTED_PROXIES names', () => {
    expect(loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET }).trustedProxies).toEqual([]);
    expect(
      loadIdentityConfig({
        SVC_INTERNAL_SECRET: SECRET,
        SVC_IDENTITY_TRUSTED_PROXIES: ' 10.0.0.0/8, loopback ',
      }).trustedProxies,
    ).toEqual(['10.0.0.0/8', 'loopback']);
    for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.1/8/1'])
      expect(() =>
        loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_TRUSTED_PROXIES: bad }),
      ).toThrow(/SVC_IDENTITY_TRUSTED_PROXIES/);
  });

  it('fails fast with a clear message', () => {
    expect(() => loadIdentityConfig({})).toThrow(ConfigError);
    expect(() => loadIdentityConfig({})).toThrow(/SVC_INTERNAL_SECRET/);
    expect(() =>
      loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_DATABASE_URL: 'mysql://x' }),
    ).toThrow(/SVC_IDENTITY_DATABASE_URL/);
    expect(() => loadIdentityConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_IDENTITY_PORT: 'abc' })).toThrow(
      /SVC_IDENTITY_PORT/,
    );
  });
});
