// OTLP/HTTP metrics (JSON as sent, or protobuf decoded to the same shape) mapped to our metric
// records (docs/ingest.md, "OTLP traces, logs and metrics"); they then go through the same
// validation as /ingest/v1/batch.

import { TEXT_MAX } from '../field-rules';
import { BodyPath, type PathSegment } from '../json/json-path';
import { checkLength, countAt, metricValueAt, msOf, nameAt, optionalTextAt, timeAt } from './otlp-fields';
import {
  doubleAt,
  enumAt,
  type FieldSources,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  requestObject,
} from './otlp-shape';
import {
  attributesAt,
  checkAttributeCount,
  idFromAttributes,
  resourceOf,
  SESSION_KEYS,
  USER_KEYS,
} from './otlp-values';

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

/** One sample a point stands for: the name's suffix, the value, and the field it came from. */
type Sample = [suffix: string, value: number, field: readonly PathSegment[]];

/** The samples one point stands for; every value checked (finite, within ±1e15), naming its field. */
function samplesOf(point: OtlpObject, kind: Kind, path: BodyPath, out: OtlpOutput): Sample[] {
  if (kind === 'number') {
    const double = metricValueAt(point, 'asDouble', 'double', path, out);
    if (double !== undefined) return [['', double, ['asDouble']]];
    if (point.asDouble !== undefined && point.asDouble !== null) return [];
    const int = metricValueAt(point, 'asInt', 'int64', path, out);
    // A point with no value is OTLP's "no recorded value": nothing to store.
    return int === undefined ? [] : [['', int, ['asInt']]];
  }
  const count = countAt(point, 'count', path, out);
  const samples: Sample[] = count === undefined ? [] : [['.count', count, ['count']]];
  for (const key of ['sum', 'min', 'max'] as const) {
    const value = metricValueAt(point, key, 'double', path, out);
    if (value !== undefined) samples.push([`.${key}`, value, [key]]);
  }
  let index = -1;
  for (const [q, qPath] of objectsOf(point, 'quantileValues', path, out)) {
    index++;
    const quantile = doubleAt(q, 'quantile', qPath, out);
    if (quantile === undefined) continue;
    if (!(quantile >= 0 && quantile <= 1)) {
      out.problem(qPath.child('quantile'), 'expected a number between 0 and 1');
      continue;
    }
    const before = out.problemCount;
    const value = metricValueAt(q, 'value', 'double', qPath, out);
    if (out.problemCount === before)
      samples.push([`.${quantileName(quantile)}`, value ?? 0, ['quantileValues', index, 'value']]);
  }
  return samples;
}

/** Where a metric record's fields come from in its data point (`value`: the sample's field). */
function metricFields(value: readonly PathSegment[]): FieldSources {
  return {
    timestamp: ['timeUnixNano'],
    value,
    attributes: ['attributes'],
    user_id: ['attributes'],
    session_id: ['attributes'],
  };
}
/** The same field sources for every sample of a field: made once per field, not per record. */
const sourcesByField = new Map<string, FieldSources>();
function fieldsOf(value: readonly PathSegment[]): FieldSources {
  const key = value.join('.');
  let fields = sourcesByField.get(key);
  if (!fields) {
    fields = metricFields(value);
    // Quantile indexes are the client's: remembered only for the first few.
    if (sourcesByField.size < 64) sourcesByField.set(key, fields);
  }
  return fields;
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
    const resource = resourceOf(resourceMetrics, resourcePath, out);
    const service = resource.attributes['service.name'];
    const version = resource.attributes['service.version'];
    if (version)
      checkLength(
        version,
        TEXT_MAX.appVersion,
        resource.at('service.version'),
        out,
        ' (kept as app_version)',
      );
    for (const [scope, scopePath] of objectsOf(resourceMetrics, 'scopeMetrics', resourcePath, out)) {
      for (const [metric, metricPath] of objectsOf(scope, 'metrics', scopePath, out)) {
        const name = nameAt(metric, 'name', TEXT_MAX.metricName, metricPath, out);
        const unit = optionalTextAt(metric, 'unit', TEXT_MAX.unit, metricPath, out);
        for (const [shape, kind] of SHAPES) {
          const points = objectAt(metric, shape, metricPath, out);
          if (!points) continue;
          const pointsPath = metricPath.child(shape);
          const temporality = enumAt(points, 'aggregationTemporality', TEMPORALITY_NAMES, pointsPath, out);
          const cumulative = shape !== 'gauge' && temporality === CUMULATIVE;
          const marked: Record<string, string> = cumulative ? { 'otel.temporality': 'cumulative' } : {};
          const added = [
            ...(service ? ["the resource's service.name"] : []),
            ...(cumulative ? ['otel.temporality'] : []),
          ];
          for (const [point, pointPath] of objectsOf(points, 'dataPoints', pointsPath, out)) {
            const before = out.problemCount;
            const time = timeAt(point, 'timeUnixNano', pointPath, out, { required: true });
            const samples = samplesOf(point, kind, pointPath, out);
            const pointAttributes = attributesAt(point, 'attributes', pointPath, out);
            const attributes: Record<string, string> = {
              ...(service ? { 'service.name': service } : {}),
              ...marked,
              ...pointAttributes,
            };
            checkAttributeCount(attributes, pointPath.child('attributes'), out, added);
            const user = idFromAttributes(pointAttributes, USER_KEYS, point, pointPath, out);
            const session = idFromAttributes(pointAttributes, SESSION_KEYS, point, pointPath, out);
            for (const [suffix] of samples)
              if (name && name.length + suffix.length > TEXT_MAX.metricName)
                out.problem(
                  metricPath.child('name'),
                  `longer than ${TEXT_MAX.metricName} characters with the suffix ${suffix} (${name.length + suffix.length})`,
                );
            if (out.problemCount === before && name !== undefined) {
              for (const [suffix, value, field] of samples) {
                out.add(
                  {
                    timestamp: msOf(time!),
                    name: `${name}${suffix}`,
                    value,
                    ...(unit && suffix !== '.count' ? { unit } : {}),
                    ...(version ? { app_version: version } : {}),
                    ...(user ? { user_id: user } : {}),
                    ...(session ? { session_id: session } : {}),
                    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
                  },
                  pointPath,
                  fieldsOf(field),
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
