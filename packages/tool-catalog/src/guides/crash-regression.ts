import { defineGuide } from '@svc/tool-kit';

export const crashRegressionGuide = defineGuide({
  name: 'triage-crash-regression',
  title: 'Triage a crash regression between releases',
  description:
    'Did a release bring new crashes or make old ones worse? Compares two app versions, finds the ' +
    'signatures behind the difference and reads one crash of each.',
  arguments: [
    { name: 'release', description: 'The new app version, e.g. 2.5.0.', required: true },
    { name: 'previous_release', description: 'The version to compare with, e.g. 2.4.0.', required: true },
  ],
  steps: [
    {
      tool: 'release.health',
      args: { versions: '{previous_release},{release}' },
      lookFor:
        'The crash-free session rate of each version side by side: a drop in {release} is the regression to explain.',
    },
    {
      tool: 'crash.stats',
      args: { app_version: '{release}' },
      lookFor: 'The signatures of {release} with their shares and first seen: note the biggest ones.',
    },
    {
      tool: 'crash.stats',
      args: { app_version: '{previous_release}' },
      lookFor:
        'The same list for {previous_release}: a signature absent here is new in {release}; one whose share grew got worse.',
    },
    {
      tool: 'crash.recurrence',
      args: { signature: '<a signature from step 2>', since: '<when {release} shipped, ISO 8601>' },
      lookFor:
        'Per app version counts of the signature: whether it occurs only in {release} or also in older versions.',
    },
    {
      tool: 'crash.by_signature',
      args: { signature: '<the same signature>', limit: 5 },
      lookFor: 'Recent events of the signature: devices, users and one event_id to open.',
    },
    {
      tool: 'crash.get',
      args: { event_id: '<an event_id from step 5>' },
      lookFor:
        'The (symbolicated) frames and the breadcrumbs before the crash: the code path that changed in {release}.',
    },
  ],
});
