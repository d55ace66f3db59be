// The core validates a batch whole: one bad record and the whole batch (spans, events, everyone's
// metrics) is refused. So records are cleaned here first, to the ingest format's bounds
// (docs/ingest.md): texts cut to their length, and what cannot be made valid left out, the caller
// told why.

const MAX_ATTRIBUTES = 64;
const MAX_PROPERTIES_JSON = 16_384;
const MAX_PROPERTY_DEPTH = 32;
const MAX_METRIC_VALUE = 1e15;

export type Attributes = Record<string, string | number | boolean>;

/** At most 64 attributes, keys 1..200 characters, values a string (4096), a finite number or a boolean. */
export function cleanAttributes(attributes: Record<string, unknown> | undefined): Attributes | undefined {
  if (!attributes || typeof attributes !== 'object') return undefined;
  const out: Attributes = {};
  let count = 0;
  for (const [key, value] of Object.entries(attributes)) {
    if (count >= MAX_ATTRIBUTES) break;
    if (!key || key.length > 200 || key === '__proto__' || value === undefined) continue;
    out[key] =
      typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
        ? value
        : String(value).slice(0, 4096);
    count++;
  }
  return count > 0 ? out : undefined;
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_PROPERTY_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}

/** Event properties as the core takes them, or a reason they cannot be sent. */
export function checkProperties(properties: unknown): { ok: Record<string, unknown> } | { problem: string } {
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
    return { problem: 'properties must be an object' };
  let json: string | undefined;
  try {
    json = JSON.stringify(properties);
  } catch {
    return { problem: 'properties are not JSON (a cycle or a BigInt)' };
  }
  if (json === undefined || json.length > MAX_PROPERTIES_JSON)
    return { problem: `properties exceed ${MAX_PROPERTIES_JSON} characters as JSON` };
  if (depthOf(properties) > MAX_PROPERTY_DEPTH)
    return { problem: `properties are nested more than ${MAX_PROPERTY_DEPTH} levels` };
  // What is sent is the JSON round trip: undefined values and functions left out, as JSON does.
  return { ok: JSON.parse(json) as Record<string, unknown> };
}

/** Why a name cannot be sent (1..200 characters), or undefined. */
export function nameProblem(name: unknown, what: string): string | undefined {
  return typeof name === 'string' && name.length >= 1 && name.length <= 200
    ? undefined
    : `${what} must be a text of 1 to 200 characters`;
}

/** Why a metric value cannot be sent, or undefined. */
export function metricValueProblem(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_METRIC_VALUE
    ? undefined
    : 'a metric value must be a finite number within -1e15 .. 1e15';
}

/** An id as the core takes it: 1..200 characters; undefined for an empty one. */
export function cleanId(id: string | undefined): string | undefined {
  return id ? id.slice(0, 200) : undefined;
}
