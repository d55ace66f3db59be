// OTLP/HTTP metrics (JSON as sent, or protobuf decoded to the same shape) mapped to our metric
// records (docs/ingest.md, "OTLP"); they then go through the same validation as /ingest/v1/batch.

import { BodyPath } from './json-path';
import {
  doubleAt,
  enumAt,
  int64At,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  requestObject,
  stringAt,
} from './otlp-shape';
import { attributesAt, first, msOf, resourceAttributesAt, SESSION_KEYS, USER_KEYS } from './otlp-values';

const TEMPORALITY_NAMES = [
  'AGGREGATION_TEMPORALITY_UNSPECIFIED',
  'AGGREGATION_TEMPORALITY_DELTA',
  'AGGREGATION_TEMPORALITY_CUMULATIVE',
] as const;
const CUMULATIVE = 2;

/** `p50`, `p99`, `p99.9` for quantiles 0.5, 0.99, 0.999. */
const quantileName = (q: number) => `p${Number((q * 100).toFixed(4))}`;

type Kind = 'number' | 'distribution';
/** The metric's data shapes, in the order they are looked at. */
const SHAPES: [string, Kind][] = [
  ['gauge', 'number'],
  ['sum', 'number'],
  ['histogram', 'distribution'],
  ['exponentialHistogram', 'distribution'],
  ['summary', 'distribution'],
];

/** The (suffix, value) pairs one point stands for. */
function valuesOf(point: OtlpObject, kind: Kind, path: BodyPath, out: OtlpOutput): [string, number][] {
  if (kind === 'number') {
    const double = doubleAt(point, 'asDouble', path, out);
    const int = double === undefined ? int64At(point, 'asInt', path, out) : undefined;
    const value = double ?? (int === undefined ? undefined : Number(int));
    // A point with no value is OTLP's "no recorded value": nothing to store.
    return value === undefined ? [] : [['', value]];
  }
  const count = int64At(point, 'count', path, out);
  const pairs: [string, number][] = [['.count', count === undefined ? 0 : Number(count)]];
  for (const key of ['sum', 'min', 'max'] as const) {
    const value = doubleAt(point, key, path, out);
    if (value !== undefined) pairs.push([`.${key}`, value]);
  }
  for (const [q, qPath] of objectsOf(point, 'quantileValues', path, out)) {
    const quantile = doubleAt(q, 'quantile', qPath, out);
    if (quantile === undefined) continue;
    if (!(quantile >= 0 && quantile <= 1)) {
      out.problem(qPath.child('quantile'), 'expected a number between 0 and 1');
      continue;
    }
    pairs.push([`.${quantileName(quantile)}`, doubleAt(q, 'value', qPath, out) ?? 0]);
  }
  return pairs;
}

/**
 * Our metric records for an OTLP metrics request, into `out`. A gauge or sum point is one record
 * named after the metric; a histogram, exponential histogram or summary point is several:
 * `<name>.count`, `.sum`, `.min`, `.max` where present, and a summary's quantiles as `<name>.p50`,
 * `.p99`... Buckets and exemplars are not kept. A cumulative sum or histogram is stored as sent (a
 * running total), marked with the attribute `otel.temporality=cumulative`. The resource's
 * service.name and service.version become the attribute `service.name` and `app_version`.
 * Yields after each data point, so that the caller can pause between slices.
 */
export function* metricsFromOtlp(body: unknown, out: OtlpOutput): Generator<void> {
  const request = requestObject(body, 'an OTLP ExportMetricsServiceRequest');
  for (const [resourceMetrics, resourcePath] of objectsOf(request, 'resourceMetrics', BodyPath.ROOT, out)) {
    const resource = resourceAttributesAt(resourceMetrics, resourcePath, out);
    const service = resource['service.name'];
    const version = resource['service.version'];
    for (const [scope, scopePath] of objectsOf(resourceMetrics, 'scopeMetrics', resourcePath, out)) {
      for (const [metric, metricPath] of objectsOf(scope, 'metrics', scopePath, out)) {
        const name = stringAt(metric, 'name', metricPath, out) ?? '';
        const unit = stringAt(metric, 'unit', metricPath, out);
        for (const [shape, kind] of SHAPES) {
          const points = objectAt(metric, shape, metricPath, out);
          if (!points) continue;
          const pointsPath = metricPath.child(shape);
          const temporality = enumAt(points, 'aggregationTemporality', TEMPORALITY_NAMES, pointsPath, out);
          const marked: Record<string, string> =
            shape !== 'gauge' && temporality === CUMULATIVE ? { 'otel.temporality': 'cumulative' } : {};
          for (const [point, pointPath] of objectsOf(points, 'dataPoints', pointsPath, out)) {
            const before = out.problemCount;
            const attributes: Record<string, string> = {
              ...(service ? { 'service.name': service } : {}),
              ...marked,
              ...attributesAt(point, 'attributes', pointPath, out),
            };
            const time = int64At(point, 'timeUnixNano', pointPath, out);
            const values = valuesOf(point, kind, pointPath, out);
            if (out.problemCount === before) {
              const user = first(attributes, USER_KEYS);
              const session = first(attributes, SESSION_KEYS);
              for (const [suffix, value] of values) {
                out.add(
                  {
                    timestamp: msOf(time),
                    name: `${name}${suffix}`,
                    value,
                    ...(unit && suffix !== '.count' ? { unit } : {}),
                    ...(version ? { app_version: version } : {}),
                    ...(user ? { user_id: user } : {}),
                    ...(session ? { session_id: session } : {}),
                    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
                  },
                  pointPath,
                );
              }
            }
            yield;
          }
        }
      }
    }
  }
}
