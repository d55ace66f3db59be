import { ConfigError } from '@svc/config';
import { bodyLimitBytes, defaultAnswerWorkers, loadGatewayConfig } from './config';

const SECRET = 'a-long-enough-internal-secret';

describe('gateway config', () => {
  it('applies the documented defaults', () => {
    const c = loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET });
    expect(c).toMatchObject({
      port: 8092,
      host: '127.0.0.1',
      coreUrl: 'http://localhost:8080',
      identityUrl: 'http://localhost:8081',
      recallUrl: undefined,
      copilotUrl: undefined,
      allowedOrigins: [],
      mcpStateless: false,
      metricsPort: 9464,
      bodyLimit: '1mb',
      limits: {
        perTokenPerMinute: 600,
        perProjectPerMinute: 3000,
        concurrentPerToken: 32,
        concurrentPerProject: 64,
        concurrentPerOrg: 96,
      },
      sessions: {
        idleMs: 30 * 60_000,
        maxSessions: 1000,
        maxSessionsPerToken: 100,
        maxSessionsPerProject: 250,
      },
      publicUrl: undefined,
    });
  });

  it('takes the MCP session caps from SVC_MCP_MAX_SESSIONS* and refuses zero', () => {
    const c = loadGatewayConfig({
      SVC_INTERNAL_SECRET: SECRET,
      SVC_MCP_MAX_SESSIONS: '50',
      SVC_MCP_MAX_SESSIONS_PER_TOKEN: '5',
      SVC_MCP_MAX_SESSIONS_PER_PROJECT: '20',
    });
    expect(c.sessions).toMatchObject({ maxSessions: 50, maxSessionsPerToken: 5, maxSessionsPerProject: 20 });
    expect(() =>
      loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_MCP_MAX_SESSIONS_PER_PROJECT: '0' }),
    ).toThrow(/SVC_MCP_MAX_SESSIONS_PER_PROJECT/);
  });

  it('takes the answer workers from SVC_ANSWER_WORKERS (0: on the event loop) and refuses a negative count', () => {
    expect(loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET }).answerWorkers).toBe(defaultAnswerWorkers());
    expect(loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_ANSWER_WORKERS: '0' }).answerWorkers).toBe(0);
    expect(loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_ANSWER_WORKERS: '3' }).answerWorkers).toBe(3);
    expect(() => loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_ANSWER_WORKERS: '-1' })).toThrow(
      /SVC_ANSWER_WORKERS/,
    );
  });

  it('fails fast, naming the variable, without SVC_INTERNAL_SECRET', () => {
    expect(() => loadGatewayConfig({})).toThrow(ConfigError);
    expect(() => loadGatewayConfig({})).toThrow(/SVC_INTERNAL_SECRET/);
  });

  it('treats an empty recall/copilot endpoint as not deployed and a set one as deployed', () => {
    const off = loadGatewayConfig({
      SVC_INTERNAL_SECRET: SECRET,
      SVC_RECALL_ENDPOINT: '',
      SVC_COPILOT_ENDPOINT: ' ',
    });
    expect(off.recallUrl).toBeUndefined();
    expect(off.copilotUrl).toBeUndefined();
    const on = loadGatewayConfig({
      SVC_INTERNAL_SECRET: SECRET,
      SVC_RECALL_ENDPOINT: 'http://localhost:8087',
    });
    expect(on.recallUrl).toBe('http://localhost:8087');
  });

  it('parses the origin list, stateless flag and limits', () => {
    const c = loadGatewayConfig({
      SVC_INTERNAL_SECRET: SECRET,
      SVC_ALLOWED_ORIGINS: 'https://a.example/, http://localhost:3000 ,',
      SVC_MCP_STATELESS: '1',
      SVC_BODY_LIMIT: '256kb',
      SVC_RATE_LIMIT_PER_MINUTE: '60',
      SVC_PUBLIC_URL: 'https://mcp.example.com',
    });
    expect(c.allowedOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(c.mcpStateless).toBe(true);
    expect(bodyLimitBytes(c.bodyLimit)).toBe(256 * 1024);
    expect(c.limits.perTokenPerMinute).toBe(60);
    expect(c.publicUrl).toBe('https://mcp.example.com');
  });

  it.each([
    ['SVC_BODY_LIMIT', 'lots'],
    ['SVC_ALLOWED_ORIGINS', 'not a url'],
    ['SVC_RATE_LIMIT_PER_MINUTE', '0'],
    ['SVC_RECALL_ENDPOINT', 'ftp://x'],
  ])('rejects %s=%s', (key, value) => {
    expect(() => loadGatewayConfig({ SVC_INTERNAL_SECRET: SECRET, [key]: value })).toThrow(new RegExp(key));
  });
});
