import { join } from 'node:path';
import { ConfigError, findRepositoryRoot } from '@svc/config';
import { loadCoreConfig } from './config';

const secret = { SVC_INTERNAL_SECRET: 'a-long-enough-internal-secret' };

describe('loadCoreConfig', () => {
  it('defaults to embedded chDB under ./.data and the port of the observability endpoint', () => {
    expect(loadCoreConfig(secret)).toMatchObject({
      port: 8080,
      identityUrl: 'http://localhost:8081',
      storage: {
        kind: 'embedded',
        path: join(findRepositoryRoot(process.cwd())!, '.data', 'clickhouse'),
        database: 'observability',
      },
      retention: { defaultDays: 90, spanDays: 14 },
    });
    expect(loadCoreConfig({ ...secret, SVC_OBSERVABILITY_ENDPOINT: 'http://core:9100' }).port).toBe(9100);
    expect(
      loadCoreConfig({ ...secret, SVC_OBSERVABILITY_ENDPOINT: 'http://core:9100', SVC_CORE_PORT: '7000' })
        .port,
    ).toBe(7000);
  });

  it('traces itself into SVC_SELF_TRACE_PROJECT, sending to its own endpoint; off when unset', () => {
    expect(loadCoreConfig(secret).selfTrace).toBeUndefined();
    expect(
      loadCoreConfig({
        ...secret,
        SVC_OBSERVABILITY_ENDPOINT: 'http://core:9100',
        SVC_SELF_TRACE_PROJECT: 'prj_stack',
        SVC_SELF_TRACE_SAMPLE_RATE: '0.5',
      }).selfTrace,
    ).toEqual({ project: 'prj_stack', coreUrl: 'http://core:9100', sampleRate: 0.5 });
    expect(() => loadCoreConfig({ ...secret, SVC_SELF_TRACE_SAMPLE_RATE: '2' })).toThrow(
      /SVC_SELF_TRACE_SAMPLE_RATE: must be/,
    );
  });

  it('uses a ClickHouse server when SVC_CLICKHOUSE_URL is set', () => {
    const config = loadCoreConfig({
      ...secret,
      SVC_CLICKHOUSE_URL: 'http://ch:8123',
      SVC_CLICKHOUSE_USER: 'svc',
    });
    expect(config.storage).toEqual({
      kind: 'server',
      url: 'http://ch:8123',
      database: 'observability',
      username: 'svc',
      password: undefined,
    });
  });

  it('fails fast without the internal secret or with a bad value', () => {
    expect(() => loadCoreConfig({})).toThrow(ConfigError);
    expect(() => loadCoreConfig({ ...secret, SVC_CORE_PORT: 'http' })).toThrow(/SVC_CORE_PORT/);
    expect(() => loadCoreConfig({ ...secret, SVC_SPAN_RETENTION_DAYS: '0' })).toThrow(
      /SVC_SPAN_RETENTION_DAYS/,
    );
    expect(() => loadCoreConfig({ ...secret, SVC_CLICKHOUSE_DATABASE: 'x;drop' })).toThrow(
      /SVC_CLICKHOUSE_DATABASE/,
    );
  });
});
