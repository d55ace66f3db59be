// The OpenTelemetry web setup of otel.ts with the context manager its docs show for async code in
// pages: zone.js, which follows the active span across awaits and timers (ours does not).
import { ZoneContextManager } from '@opentelemetry/context-zone';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { FetchInstrumentation } from '@opentelemetry/instrumentation-fetch';
import { XMLHttpRequestInstrumentation } from '@opentelemetry/instrumentation-xml-http-request';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, WebTracerProvider } from '@opentelemetry/sdk-trace-web';

const provider = new WebTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'web', 'service.version': '1.4.0' }),
  spanProcessors: [
    new BatchSpanProcessor(new OTLPTraceExporter({ url: 'https://ingest.example.com/v1/traces' })),
  ],
});
provider.register({ contextManager: new ZoneContextManager() });
const api = [/^https:\/\/api\.example\.com\//];
registerInstrumentations({
  instrumentations: [
    new FetchInstrumentation({ propagateTraceHeaderCorsUrls: api }),
    new XMLHttpRequestInstrumentation({ propagateTraceHeaderCorsUrls: api }),
  ],
});
