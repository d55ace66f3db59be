import { captureError, initTracing, type WebTracing } from './init';

// The script-tag build's entry: what a page without a bundler calls, as `window.SvcWeb` (`init`, the
// short name of `initTracing`; `captureError`; `traceHeaders` and `withSpan` for requests the page
// starts itself), plus a start from the script tag's own attributes, so a page needs no code at all:
//   <script src="svc-web.min.js" integrity="sha384-..." crossorigin="anonymous"
//           data-dsn="https://<key_id>:<secret>@ingest.example.com/<project_id>" data-service="web"
//           data-app-version="1.4.0" data-sample-rate="0.1"></script>
// The parts `initTracing` assembles (createTracer, createExporter, the traceparent and sampling
// helpers) are the ES module build's: a page that wants them separately has a bundler, and every
// export here is code each page that loads the file pays for.
export { traceHeaders, withSpan } from './index';
export { captureError, initTracing };

export const init = initTracing;

/** The tracing the script tag's `data-dsn` started, if it named one. */
export let started: WebTracing | undefined;

// A classic script's own element, while it runs (null in a module or after it ran; no document in
// a worker).
const data =
  typeof document === 'object' ? (document.currentScript as HTMLScriptElement | null)?.dataset : undefined;
if (data?.dsn) {
  // An attribute left out is undefined, as an option left out is.
  started = initTracing({
    dsn: data.dsn,
    service: data.service || 'web',
    appVersion: data.appVersion,
    sampleRate: data.sampleRate ? Number(data.sampleRate) : undefined,
  });
}
