import { traceTools } from './toolset';

describe('trace tool inputs', () => {
  it('are controlled by vis_trace', () => {
    expect(traceTools.map((t) => t.capability)).toEqual(traceTools.map(() => 'vis_trace'));
  });
});
