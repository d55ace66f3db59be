import { loadGatewayConfig } from '@svc/http-gateway';
import { loadIdentityConfig } from '@svc/identity';
import { loadStandaloneConfig } from './config';
import { oauthPublicUrls } from './public-urls';

const PORTS = { gateway: 9092, identity: 9081, console: 9094 };

describe('the public URLs of a stack in one process', () => {
  it('follow the ports it listens on when unset', () => {
    expect(oauthPublicUrls({}, PORTS)).toEqual({
      SVC_PUBLIC_URL: 'http://localhost:9092',
      SVC_IDENTITY_PUBLIC_URL: 'http://localhost:9081',
      SVC_CONSOLE_PUBLIC_URL: 'http://localhost:9094',
      SVC_OAUTH_ISSUER: 'http://localhost:9081/oauth',
    });
  });

  it('keep what is set (a proxy in front); the issuer follows identity’s public URL', () => {
    const env = {
      SVC_PUBLIC_URL: 'https://mcp.example.com',
      SVC_IDENTITY_PUBLIC_URL: 'https://id.example.com/',
      SVC_CONSOLE_PUBLIC_URL: 'https://console.example.com',
    };
    expect(oauthPublicUrls(env, PORTS)).toEqual({ ...env, SVC_OAUTH_ISSUER: 'https://id.example.com/oauth' });
    expect(
      oauthPublicUrls({ SVC_OAUTH_ISSUER: 'https://as.example.com/oauth' }, PORTS).SVC_OAUTH_ISSUER,
    ).toBe('https://as.example.com/oauth');
  });

  it('leave a port the system picks (0) to the service', () => {
    expect(oauthPublicUrls({}, { gateway: 0, identity: 0, console: 0 })).toEqual({});
  });

  it('`pnpm start` on other ports: identity issues for the gateway clients reach, which names identity as its issuer', () => {
    const env = {
      SVC_DATA_DIR: '/tmp/svc-public-urls-test',
      SVC_INTERNAL_SECRET: 'a-secret-of-at-least-16-chars',
      SVC_MCP_HTTP_PORT: '9092',
      SVC_IDENTITY_INTERNAL_URL: 'http://127.0.0.1:9081',
      SVC_CONSOLE_PORT: '9094',
    };
    const { serviceEnv } = loadStandaloneConfig(env);
    const identity = loadIdentityConfig(serviceEnv).oauth;
    const gateway = loadGatewayConfig(serviceEnv);
    expect(identity).toMatchObject({
      issuer: 'http://localhost:9081/oauth',
      resource: 'http://localhost:9092/mcp',
      consoleUrl: 'http://localhost:9094',
    });
    expect(`${gateway.publicUrl}/mcp`).toBe(identity.resource);
    expect(gateway.oauthIssuer).toBe(identity.issuer);
  });
});
