import { captureError, initTracing, type WebTracing, type WebTracingOptions } from './init';

// The script-tag build's entry: the package's API as `window.SvcWeb`, plus `init` (the short name
// a page calls) and a start from the script tag's own attributes, so a page needs no code at all:
//   <script src="svc-web.min.js" integrity="sha384-..." crossorigin="anonymous"
//           data-dsn="https://<key_id>:<secret>@ingest.example.com/<project_id>" data-service="web"
//           data-app-version="1.4.0" data-sample-rate="0.1"></script>
export {
  checkSampleRate,
  createExporter,
  createTracer,
  fnv1a32,
  formatTraceparent,
  instrumentFetch,
  instrumentXhr,
  isSampled,
  newSpanId,
  newTraceId,
  parseTraceparent,
  traceHeaders,
  withSpan,
} from './index';
export { captureError, initTracing };

export const init = initTracing;

/** The tracing the script tag's `data-dsn` started, if it named one. */
export let started: WebTracing | undefined;

// A classic script's own element, while it runs (null in a module or after it ran; no document in
// a worker).
const data =
  typeof document === 'object' ? (document.currentScript as HTMLScriptElement | null)?.dataset : undefined;
if (data?.dsn) {
  const options: WebTracingOptions = { dsn: data.dsn, service: data.service || 'web' };
  if (data.appVersion) options.appVersion = data.appVersion;
  if (data.sampleRate) options.sampleRate = Number(data.sampleRate);
  started = initTracing(options);
}
