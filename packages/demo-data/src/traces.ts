import type { Random } from './random';
import type { DemoBatch, DemoSpan } from './records';
import { type SessionSummary, SLOW_CHECKOUT } from './session-story';
import { compareVersions } from './versions';

const DAY = 24 * 60 * 60_000;

/** Spans are kept 14 days by default; older requests get no spans (ingest would refuse them). */
export const SPAN_DAYS = 13.5;

/** Head-sampling rate per service; services not listed keep every span. */
export const SERVICE_SAMPLE_RATES: Readonly<Record<string, number>> = { payments: 0.25 };

const iso = (ms: number) => new Date(ms).toISOString();
const round1 = (x: number) => Math.round(x * 10) / 10;

type Request = SessionSummary['requests'][number];

/** Which backend service handles a route, and the handler's operation and database call. */
const HANDLERS: Record<string, { service: string; operation: string; db: string }> = {
  '/api/v1/feed': { service: 'catalog', operation: 'feed.list', db: 'SELECT products ORDER BY rank' },
  '/api/v1/products/{id}': { service: 'catalog', operation: 'product.get', db: 'SELECT products WHERE id' },
  '/api/v1/search': { service: 'catalog', operation: 'search.query', db: 'SELECT products WHERE name ILIKE' },
  '/api/v1/cart/items': { service: 'checkout', operation: 'cart.add_item', db: 'UPDATE carts' },
  '/api/v1/checkout': { service: 'checkout', operation: 'checkout.create_order', db: 'INSERT orders' },
  '/api/v1/profile': { service: 'accounts', operation: 'profile.get', db: 'SELECT users WHERE id' },
};

/**
 * One trace per request of each session of the last SPAN_DAYS days: the app's client span ->
 * api-gateway (the span the backend log line was written in) -> the route's service -> postgres,
 * and for checkout also risk (the fraud check) and payments (head-sampled at 0.25: most of its
 * spans are not kept, unless they failed), which calls card-vault, whose span is an orphan when
 * the payments span above it was sampled out. From SLOW_CHECKOUT.version on, checkout waits for
 * the fraud check: the time shows up as fraud.score's self time.
 */
export function writeSessionTraces(
  random: Random,
  summaries: readonly SessionSummary[],
  nowMs: number,
  out: DemoBatch,
): void {
  for (const s of summaries) {
    for (const r of s.requests) {
      if (r.atMs - r.ms < nowMs - SPAN_DAYS * DAY) continue;
      writeTrace(random, s, r, out);
    }
  }
}

function writeTrace(random: Random, s: SessionSummary, r: Request, out: DemoBatch): void {
  const failed = r.status >= 500;
  const who = { user_id: s.session.user_id, session_id: s.session.session_id };
  const add = (span: Omit<DemoSpan, 'trace_id' | 'span_id'>, spanId = random.hex(16)) => {
    out.spans.push({ trace_id: r.traceId, span_id: spanId, ...span });
    return { id: spanId, start: Date.parse(span.start_time), duration: span.duration_ms };
  };
  const at = (startMs: number, durationMs: number) => ({
    start_time: iso(Math.round(startMs)),
    duration_ms: round1(Math.max(0.1, durationMs)),
  });
  const status = failed ? ('error' as const) : ('ok' as const);

  const client = add({
    kind: 'client',
    status,
    operation: `${r.method} ${r.route}`,
    service: 'mobile-app',
    ...at(r.atMs - r.ms, r.ms),
    attributes: { 'http.status_code': String(r.status), 'app.version': s.session.app_version },
    ...who,
  });
  const network = Math.min(40, r.ms * 0.1) * (0.5 + random.next() / 2);
  const gateway = add(
    {
      parent_span_id: client.id,
      kind: 'server',
      status,
      operation: `${r.method} ${r.route}`,
      service: 'api-gateway',
      ...at(client.start + network, r.ms - 2 * network),
      attributes: { 'http.route': r.route, 'http.status_code': String(r.status) },
      ...who,
    },
    r.backendSpanId,
  );
  const handler = HANDLERS[r.route] ?? HANDLERS['/api/v1/feed']!;
  const h = add({
    parent_span_id: gateway.id,
    kind: 'server',
    status: failed ? 'error' : r.status === 404 ? 'unset' : 'ok',
    operation: handler.operation,
    service: handler.service,
    ...at(gateway.start + 1, gateway.duration - 2),
  });
  const dbShare = 0.1 + random.next() * 0.3;
  if (r.route === SLOW_CHECKOUT.route) {
    // From the slow release on, checkout first waits for a new fraud check (risk service).
    const slow = compareVersions(s.session.app_version, SLOW_CHECKOUT.version) >= 0 && !failed;
    const fraud = add({
      parent_span_id: h.id,
      kind: 'client',
      status: 'ok',
      operation: 'fraud.score',
      service: 'risk',
      ...at(h.start + h.duration * 0.03, h.duration * (slow ? 0.75 : 0.05)),
    });
    const payStart = fraud.start + fraud.duration + 1;
    const payDuration = h.duration * (slow ? 0.12 : 0.5) * (1 - dbShare / 2);
    const rate = SERVICE_SAMPLE_RATES.payments!;
    const kept = random.chance(rate) || failed;
    const paymentsId = random.hex(16);
    if (kept) {
      add(
        {
          parent_span_id: h.id,
          kind: 'client',
          status: failed ? 'error' : 'ok',
          operation: 'payments.authorize',
          service: 'payments',
          ...at(payStart, payDuration),
          sample_rate: rate,
          ...(failed ? { attributes: { error: 'connection reset' } } : {}),
        },
        paymentsId,
      );
    }
    // card-vault keeps every span: when payments was sampled out, its span names a parent that
    // is not there (an orphan).
    add({
      parent_span_id: paymentsId,
      kind: 'server',
      status: 'ok',
      operation: 'vault.tokenize',
      service: 'card-vault',
      ...at(payStart + 1, Math.min(payDuration * 0.2, 25)),
    });
    add({
      parent_span_id: h.id,
      kind: 'client',
      status: 'ok',
      operation: handler.db,
      service: 'postgres',
      ...at(payStart + payDuration + 1, h.duration * dbShare * 0.5),
    });
    return;
  }
  add({
    parent_span_id: h.id,
    kind: 'client',
    status: 'ok',
    operation: handler.db,
    service: 'postgres',
    ...at(h.start + h.duration * 0.2, h.duration * dbShare),
  });
}
