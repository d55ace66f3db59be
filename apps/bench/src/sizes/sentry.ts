// The Sentry browser SDK as its docs set up errors and tracing: init with the default
// integrations (global error handlers, breadcrumbs, dedupe...) and browserTracingIntegration
// (fetch and XMLHttpRequest spans, trace headers to the named API), sending to its ingest.
import * as Sentry from '@sentry/browser';

Sentry.init({
  dsn: 'https://public@o0.ingest.example.com/1',
  release: '1.4.0',
  integrations: [Sentry.browserTracingIntegration()],
  tracesSampleRate: 1,
  tracePropagationTargets: ['https://api.example.com'],
});
