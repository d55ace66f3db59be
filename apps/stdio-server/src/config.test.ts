import { ConfigError } from '@svc/config';
import { loadStdioConfig } from './config';

const ok = {
  SVC_MCP_STDIO_TRUSTED_LOCAL: '1',
  SVC_MCP_PROJECT_ID: 'prj_1',
  SVC_INTERNAL_SECRET: 's'.repeat(32),
};

describe('stdio config (refusal matrix)', () => {
  it('accepts exactly TRUSTED_LOCAL=1 with a project', () => {
    const config = loadStdioConfig(ok);
    expect(config.SVC_MCP_PROJECT_ID).toBe('prj_1');
    expect(config.SVC_MCP_ORG_ID).toBeUndefined();
    expect(config.SVC_OBSERVABILITY_ENDPOINT).toBe('http://localhost:8080');
  });

  it.each([
    ['unset', undefined],
    ['0', '0'],
    ['true', 'true'],
    ['yes', 'yes'],
    ['" 1"', ' 1'],
    ['1 with newline', '1\n'],
    ['empty', ''],
  ])('refuses TRUSTED_LOCAL %s', (_label, value) => {
    expect(() => loadStdioConfig({ ...ok, SVC_MCP_STDIO_TRUSTED_LOCAL: value })).toThrow(
      /SVC_MCP_STDIO_TRUSTED_LOCAL/,
    );
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('refuses a project id that is %s', (_label, value) => {
    expect(() => loadStdioConfig({ ...ok, SVC_MCP_PROJECT_ID: value })).toThrow(ConfigError);
  });

  it('treats an empty org id as absent (controlled tools then fail closed)', () => {
    expect(loadStdioConfig({ ...ok, SVC_MCP_ORG_ID: '' }).SVC_MCP_ORG_ID).toBeUndefined();
    expect(loadStdioConfig({ ...ok, SVC_MCP_ORG_ID: 'org_1' }).SVC_MCP_ORG_ID).toBe('org_1');
  });
});
