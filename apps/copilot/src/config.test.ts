import { loadCopilotConfig } from './config';

const base = { SVC_INTERNAL_SECRET: 'copilot-config-test-secret-0123' };

describe('copilot config', () => {
  it('defaults: port 8093, the core on :8080, no LLM', () => {
    expect(loadCopilotConfig(base)).toMatchObject({
      port: 8093,
      coreUrl: 'http://localhost:8080',
      llm: undefined,
    });
    expect(loadCopilotConfig({ ...base, SVC_COPILOT_ENDPOINT: 'http://copilot:9100' }).port).toBe(9100);
  });

  it('an LLM URL turns the parser on, with the model and timeout given or defaulted', () => {
    expect(loadCopilotConfig({ ...base, SVC_COPILOT_LLM_URL: 'https://llm.example/v1' }).llm).toEqual({
      url: 'https://llm.example/v1',
      apiKey: undefined,
      model: 'gpt-4o-mini',
      timeoutMs: 10_000,
    });
  });

  it('fails fast with the variable named', () => {
    expect(() => loadCopilotConfig({ ...base, SVC_COPILOT_LLM_API_KEY: 'sk-x' })).toThrow(
      /SVC_COPILOT_LLM_URL/,
    );
    expect(() => loadCopilotConfig({ ...base, SVC_COPILOT_LLM_URL: 'ftp://x' })).toThrow(
      /SVC_COPILOT_LLM_URL/,
    );
    expect(() => loadCopilotConfig({})).toThrow(/SVC_INTERNAL_SECRET/);
  });
});
