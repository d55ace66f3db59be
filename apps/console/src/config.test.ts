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

describe('assistant config', () => {
  const load = (env: Record<string, string>) =>
    loadConsoleConfig({ SVC_INTERNAL_SECRET: SECRET, ...env }, '/srv');

  it('is off without a model, and keeps conversations under the data dir or in PostgreSQL', () => {
    expect(load({}).assistant).toBeUndefined();
    const model = { SVC_ASSISTANT_MODEL: 'llama3.1', SVC_ASSISTANT_BASE_URL: 'http://localhost:11434/v1' };
    expect(load({ ...model, SVC_DATA_DIR: '/var/lib/svc' }).assistant?.database).toEqual({
      dataDir: '/var/lib/svc/console',
    });
    const url = 'postgres://svc@db/svc';
    expect(load({ ...model, SVC_CONSOLE_DATABASE_URL: url }).assistant?.database).toEqual({ url });
  });

  it('takes a local OpenAI-compatible server without a key (Ollama), with default budgets', () => {
    expect(
      load({ SVC_ASSISTANT_MODEL: 'llama3.1', SVC_ASSISTANT_BASE_URL: 'http://localhost:11434/v1/' })
        .assistant,
    ).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      apiKey: undefined,
      model: 'llama3.1',
      maxToolCalls: 8,
      maxResultChars: 40_000,
      timeoutMs: 120_000,
      database: { dataDir: expect.stringMatching(/\/console$/) },
    });
  });

  it("defaults Anthropic's URL, and needs its key", () => {
    const env = { SVC_ASSISTANT_PROVIDER: 'anthropic', SVC_ASSISTANT_MODEL: 'claude-sonnet-4-5' };
    expect(() => load(env)).toThrow(/SVC_ASSISTANT_API_KEY/);
    expect(load({ ...env, SVC_ASSISTANT_API_KEY: 'sk-ant-x' }).assistant).toMatchObject({
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: 'sk-ant-x',
    });
  });

  it.each([
    [{ SVC_ASSISTANT_MODEL: 'gpt-4o-mini' }, /SVC_ASSISTANT_BASE_URL/],
    [{ SVC_ASSISTANT_PROVIDER: 'gemini' }, /SVC_ASSISTANT_PROVIDER/],
    [{ SVC_ASSISTANT_MAX_TOOL_CALLS: '0' }, /SVC_ASSISTANT_MAX_TOOL_CALLS/],
    [{ SVC_CONSOLE_DATABASE_URL: 'mysql://x' }, /SVC_CONSOLE_DATABASE_URL/],
  ])('refuses %j, naming the variable', (env, expected) => {
    expect(() => load(env)).toThrow(expected);
  });
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
