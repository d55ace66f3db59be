// OTLP/HTTP metrics (JSON, or protobuf decoded to the same shape) mapped to our metric records
// (docs/ingest.md, "OTLP"); they then go through the same validation as /ingest/v1/batch.

import { attributesOf, first, type KeyValue, nanos, SESSION_KEYS, USER_KEYS } from './otlp-values';

type Nanos = string | number;
interface Point {
  attributes?: KeyValue[];
  timeUnixNano?: Nanos;
  asDouble?: number;
  asInt?: string | number;
  count?: string | number;
  sum?: number;
  min?: number;
  max?: number;
  quantileValues?: { quantile?: number; value?: number }[];
}
interface Points {
  dataPoints?: Point[];
  /** 1 delta, 2 cumulative (or their enum names in JSON). */
  aggregationTemporality?: number | string;
}
interface OtlpMetric {
  name?: string;
  unit?: string;
  gauge?: Points;
  sum?: Points;
  histogram?: Points;
  exponentialHistogram?: Points;
  summary?: Points;
}
interface OtlpMetrics {
  resourceMetrics?: {
    resource?: { attributes?: KeyValue[] };
    scopeMetrics?: { metrics?: OtlpMetric[] }[];
  }[];
}

const cumulative = (points: Points) =>
  points.aggregationTemporality === 2 ||
  points.aggregationTemporality === 'AGGREGATION_TEMPORALITY_CUMULATIVE';

/** `p50`, `p99`, `p99.9` for quantiles 0.5, 0.99, 0.999. */
const quantileName = (q: number) => `p${Number((q * 100).toFixed(4))}`;

/** The (suffix, value) pairs one point stands for. */
function valuesOf(point: Point, kind: 'number' | 'distribution'): [string, number | undefined][] {
  if (kind === 'number') {
    const value = point.asDouble ?? (point.asInt === undefined ? undefined : Number(point.asInt));
    // A point with no value is OTLP's "no recorded value": nothing to store.
    return value === undefined ? [] : [['', value]];
  }
  const pairs: [string, number | undefined][] = [
    ['.count', point.count === undefined ? 0 : Number(point.count)],
  ];
  if (point.sum !== undefined) pairs.push(['.sum', point.sum]);
  if (point.min !== undefined) pairs.push(['.min', point.min]);
  if (point.max !== undefined) pairs.push(['.max', point.max]);
  for (const q of point.quantileValues ?? [])
    if (q.quantile !== undefined) pairs.push([`.${quantileName(q.quantile)}`, q.value ?? 0]);
  return pairs;
}

/**
 * Our metric records for an OTLP metrics request. A gauge or sum point is one record named after
 * the metric; a histogram, exponential histogram or summary point is several: `<name>.count`,
 * `.sum`, `.min`, `.max` where present, and a summary's quantiles as `<name>.p50`, `.p99`...
 * Buckets and exemplars are not kept. A cumulative sum or histogram is stored as sent (a running
 * total), marked with the attribute `otel.temporality=cumulative`. The resource's service.name
 * and service.version become the attribute `service.name` and `app_version`.
 */
export function metricsFromOtlp(body: unknown): unknown[] {
  const request = (body ?? {}) as OtlpMetrics;
  const out: unknown[] = [];
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    const resource = attributesOf(resourceMetrics.resource?.attributes);
    const service = resource['service.name'];
    const version = resource['service.version'];
    for (const scope of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        const shapes: [Points | undefined, 'number' | 'distribution'][] = [
          [metric.gauge, 'number'],
          [metric.sum, 'number'],
          [metric.histogram, 'distribution'],
          [metric.exponentialHistogram, 'distribution'],
          [metric.summary, 'distribution'],
        ];
        for (const [points, kind] of shapes) {
          if (!points) continue;
          const temporality: Record<string, string> =
            points !== metric.gauge && cumulative(points) ? { 'otel.temporality': 'cumulative' } : {};
          for (const point of points.dataPoints ?? []) {
            const attributes: Record<string, string> = {
              ...(service ? { 'service.name': service } : {}),
              ...temporality,
              ...attributesOf(point.attributes),
            };
            const time = nanos(point.timeUnixNano);
            const user = first(attributes, USER_KEYS);
            const session = first(attributes, SESSION_KEYS);
            for (const [suffix, value] of valuesOf(point, kind)) {
              out.push({
                timestamp: time === undefined ? undefined : Number(time / 1_000_000n),
                name: `${metric.name ?? ''}${suffix}`,
                value,
                ...(metric.unit && suffix !== '.count' ? { unit: metric.unit } : {}),
                ...(version ? { app_version: version } : {}),
                ...(user ? { user_id: user } : {}),
                ...(session ? { session_id: session } : {}),
                ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
              });
            }
          }
        }
      }
    }
  }
  return out;
}
