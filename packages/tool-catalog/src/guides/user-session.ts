import { defineGuide } from '@svc/tool-kit';

export const userSessionGuide = defineGuide({
  name: 'reconstruct-user-session',
  title: "Reconstruct what happened in one user's session",
  description:
    "One user's story across channels: their sessions, then one session's logs, events, crashes, traces and feedback in order.",
  arguments: [
    { name: 'user_id', description: 'The end user, as the app reports it.', required: true },
    {
      name: 'session_id',
      description: 'The session, when known (else step 1 lists them).',
      required: false,
      fallback: '<a session_id from step 1>',
    },
  ],
  steps: [
    {
      tool: 'user.detail',
      args: { user_id: '{user_id}' },
      lookFor: 'found, first and last seen, and the sessions: pick the session around the reported problem.',
    },
    {
      tool: 'session.detail',
      args: { session_id: '{session_id}' },
      lookFor: "The session's record (status, platform, version) and its crashes, events and feedback.",
    },
    {
      tool: 'log.by_session',
      args: { session_id: '{session_id}' },
      lookFor:
        'The log lines oldest first: the story of the session, the last lines before a crash or an error.',
    },
    {
      tool: 'track.recent',
      args: { user_id: '{user_id}', limit: 50 },
      lookFor: 'What the user did (screens, taps, purchases) around the same times.',
    },
    {
      tool: 'trace.search',
      args: { session_id: '{session_id}' },
      lookFor: 'Requests of the session; status error or a long duration_ms points at the backend side.',
    },
    {
      tool: 'crash.by_user',
      args: { user_id: '{user_id}' },
      lookFor: 'Crashes of the user; crash.get on an event_id for the frames and breadcrumbs.',
    },
  ],
});
