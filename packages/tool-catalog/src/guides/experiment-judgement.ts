import { defineGuide } from '@svc/tool-kit';

export const experimentGuide = defineGuide({
  name: 'judge-experiment',
  title: 'Judge an experiment',
  description:
    'Whether an A/B test has a winner: per-variant conversion, lift, the fixed-horizon z test and the always-valid sequential test, and whether to trust them.',
  arguments: [
    { name: 'experiment_key', description: 'The experiment, e.g. checkout_cta_v2.', required: true },
    { name: 'days', description: 'How many days back to look (default 14).', required: false },
  ],
  steps: [
    {
      tool: 'experiment.results',
      args: { experiment_key: '{experiment_key}', days: '{days}' },
      lookFor:
        'found (false: the key is unknown), exposed users per variant (a split far from the design is a broken assignment), the lift and both p-values: call it significant only when the sequential p-value is small too, since looking at the z test repeatedly inflates false positives.',
    },
    {
      tool: 'track.stats',
      args: { days: '{days}' },
      lookFor:
        'The goal event among the top event names: too few conversions means the test cannot decide yet.',
    },
    {
      tool: 'verify.run',
      args: { query: '<your conclusion as a claim about experiment {experiment_key}>' },
      lookFor: 'supported, refuted or inconclusive: check the claim before stating it.',
    },
  ],
});
