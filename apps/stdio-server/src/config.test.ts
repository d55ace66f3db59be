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
    expect(config.projectId).toBe('prj_1');
    expect(config.orgId).toBeUndefined();
    expect(config.coreUrl).toBe('http://localhost:8080');
  });

  // As every other app's config: the environment's names stay in the schema, the code reads camelCase.
  it('names its settings in camelCase, not by their environment variables', () => {
    const keys = Object.keys(loadStdioConfig({ ...ok, SVC_MCP_ORG_ID: 'org_1' }));
    expect(keys.filter((k) => !/^[a-z][a-zA-Z]*$/.test(k))).toEqual([]);
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
    expect(loadStdioConfig({ ...ok, SVC_MCP_ORG_ID: '' }).orgId).toBeUndefined();
    expect(loadStdioConfig({ ...ok, SVC_MCP_ORG_ID: 'org_1' }).orgId).toBe('org_1');
  });

  it('reads the toolsets served (all of them when unset or blank) and refuses an unknown one by name', () => {
    expect(loadStdioConfig(ok).toolsets).toEqual([]);
    expect(loadStdioConfig({ ...ok, SVC_MCP_TOOLSETS: ' ' }).toolsets).toEqual([]);
    expect(loadStdioConfig({ ...ok, SVC_MCP_TOOLSETS: 'Crash, logs' }).toolsets).toEqual(['crash', 'logs']);
    expect(() => loadStdioConfig({ ...ok, SVC_MCP_TOOLSETS: 'crash,crashes' })).toThrow(
      /SVC_MCP_TOOLSETS.*among logs, crash, apm, trace, users, analytics, recall, verify/,
    );
  });
});
