// The 36 tool names (docs/tools.md) by the capability that shows them. The catalog may only ever
// contain these.
export const SPEC_TOOL_NAMES = {
  base: [
    'log.search',
    'log.recent',
    'log.by_user',
    'log.by_session',
    'log.aggregate',
    'crash.recent',
    'crash.get',
    'crash.by_signature',
    'crash.recurrence',
    'crash.by_user',
    'crash.aggregate',
    'crash.stats',
    'symbol.list',
    'crash.symbolicate',
    'apm.stats',
    'apm.search',
    'apm.memory_growth',
    'track.recent',
    'track.stats',
    'analytics.funnel',
    'analytics.retention',
    'analytics.cohorts',
    'analytics.dimensions',
    'feedback.search',
    'experiment.results',
    'release.health',
    'user.detail',
    'session.detail',
  ],
  vis_trace: ['trace.search', 'trace.get', 'trace.aggregate'],
  vis_recall: ['log.list_files', 'log.file_entries', 'log.audit'],
  vis_ai_verifier: ['verify.run', 'verify.run_session'],
} as const;

/** Names never part of the public catalog: tools that would change state or are internal. */
export const FORBIDDEN_TOOL_NAMES = [
  'log.recall_trigger',
  'config.get',
  'experiment.list',
  'admin.visibility.list',
];
