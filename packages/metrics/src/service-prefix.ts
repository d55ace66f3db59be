/** The stack's services that count metrics. */
export type MetricsService = 'gateway' | 'core' | 'identity' | 'recall' | 'copilot';

/**
 * The one prefix rule: the gateway's metrics are `svc_*` (the names its metrics port has always
 * served); every service behind it counts under `svc_<service>_`, so the one-process stack's
 * merged exposition (mergedExposition) holds every service's registry without a clash. Only a
 * process that serves `/metrics` counts at all: a service started alone other than the gateway
 * serves none, so its main.ts passes createNoopMetrics().
 */
export function metricsPrefix(service: MetricsService): string {
  return service === 'gateway' ? 'svc_' : `svc_${service}_`;
}
