import { instrumentFetch } from './instrument-fetch';
import { instrumentXhr } from './instrument-xhr';
import { type NetworkHooks, type RequestSeen, withoutQuery } from './network';
import { originOf, propagationRule } from './propagation';
import type { MobileParts } from './sdk-parts';

/**
 * Traces the app's fetch and XMLHttpRequest (as the options ask), each request a breadcrumb too;
 * the SDK's own endpoints (ingest, recall) are left alone. Returns what puts them back.
 */
export function instrumentNetwork(parts: MobileParts): (() => void)[] {
  const { options, tracer, breadcrumbs, recallEndpoint } = parts;
  const own = [originOf(parts.target.endpoint), ...(recallEndpoint ? [originOf(recallEndpoint)] : [])];
  const network: NetworkHooks = {
    isOwn: (url) => own.includes(originOf(url)),
    propagate: propagationRule(options.propagateTo),
    seen: (request: RequestSeen) =>
      breadcrumbs.add(
        'http',
        `${request.method} ${withoutQuery(request.url)} ${request.status ?? request.failure} (${Math.round(request.durationMs)} ms)`,
        request.failure || (request.status ?? 0) >= 500 ? 'error' : 'info',
      ),
  };
  const undo: (() => void)[] = [];
  if (options.instrument?.fetch !== false && typeof globalThis.fetch === 'function')
    undo.push(instrumentFetch(tracer, network));
  if (options.instrument?.xhr !== false) undo.push(instrumentXhr(tracer, network));
  return undo;
}
