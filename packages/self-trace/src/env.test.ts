import { ConfigError, parseEnv } from '@svc/config';
import { z } from 'zod';
import { selfTraceConfig, selfTraceEnv } from './env';

// Each service's config.ts spreads selfTraceEnv into its schema and calls selfTraceConfig with the
// core URL it has (or the variable it lacks).

const schema = z.object({ ...selfTraceEnv });
const load = (env: Record<string, string>, coreUrl: string | null = 'http://core:8080/') =>
  selfTraceConfig('svc', parseEnv('svc', schema, env), {
    url: coreUrl ?? undefined,
    variable: 'SVC_CORE_URL',
  });

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('selfTraceConfig', () => {
  it('is off (undefined) when no project is set, also when empty', () => {
    expect(load({})).toBeUndefined();
    expect(load({ SVC_SELF_TRACE_PROJECT: '  ' })).toBeUndefined();
    expect(load({}, null)).toBeUndefined();
  });

  it('keeps every trace by default and takes a rate in [0, 1]', () => {
    expect(load({ SVC_SELF_TRACE_PROJECT: 'prj_stack' })).toEqual({
      project: 'prj_stack',
      coreUrl: 'http://core:8080',
      sampleRate: 0,
    });
    expect(load({ SVC_SELF_TRACE_PROJECT: 'p', SVC_SELF_TRACE_SAMPLE_RATE: '0.25' })?.sampleRate).toBe(0.25);
    expect(load({ SVC_SELF_TRACE_PROJECT: 'p', SVC_SELF_TRACE_SAMPLE_RATE: '1' })?.sampleRate).toBe(1);
  });

  it.each([['1.5'], ['-0.1'], ['often']])('refuses the rate %s, naming the variable', (rate) => {
    const [problem] = problemsOf(() =>
      load({ SVC_SELF_TRACE_PROJECT: 'p', SVC_SELF_TRACE_SAMPLE_RATE: rate }),
    );
    expect(problem).toMatch(/^SVC_SELF_TRACE_SAMPLE_RATE: must be .*\[0, 1\]/);
  });

  it('refuses a project id the core would not take in its path', () => {
    const [problem] = problemsOf(() => load({ SVC_SELF_TRACE_PROJECT: 'a/b' }));
    expect(problem).toMatch(/^SVC_SELF_TRACE_PROJECT: must be a project id/);
  });

  it('fails fast when a project is set but there is no core to send to', () => {
    expect(problemsOf(() => load({ SVC_SELF_TRACE_PROJECT: 'p' }, null))).toEqual([
      'SVC_CORE_URL: is required when SVC_SELF_TRACE_PROJECT is set (the core the spans are sent to, e.g. http://localhost:8080)',
    ]);
  });

  it('fails fast on a rate without a project (a misspelt project variable)', () => {
    expect(problemsOf(() => load({ SVC_SELF_TRACE_SAMPLE_RATE: '0.5' }))).toEqual([
      'SVC_SELF_TRACE_SAMPLE_RATE: is set but SVC_SELF_TRACE_PROJECT is not (the project the spans go to)',
    ]);
  });
});
