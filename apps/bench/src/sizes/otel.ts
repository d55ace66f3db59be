// The OpenTelemetry web SDK as its browser docs set it up: a WebTracerProvider with a batching
// OTLP/HTTP exporter, registered with its default context manager (a stack, as synchronous as
// ours), fetch and XMLHttpRequest instrumented (trace headers to the named API). It has no error
// capture: with one it would only be larger.
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
provider.register();
const api = [/^https:\/\/api\.example\.com\//];
registerInstrumentations({
  instrumentations: [
    new FetchInstrumentation({ propagateTraceHeaderCorsUrls: api }),
    new XMLHttpRequestInstrumentation({ propagateTraceHeaderCorsUrls: api }),
  ],
});
