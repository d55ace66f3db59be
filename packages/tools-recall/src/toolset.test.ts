import { recallTools } from './toolset';

describe('recall tool inputs', () => {
  it('are controlled by vis_recall and served by recall', () => {
    expect(recallTools.map((t) => [t.capability, t.backend])).toEqual(
      recallTools.map(() => ['vis_recall', 'recall']),
    );
  });
});
