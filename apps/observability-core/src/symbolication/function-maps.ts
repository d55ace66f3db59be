// Metro's function maps: `x_facebook_sources[i][0]` of a Metro (or Metro + Hermes composed) source
// map describes, for sources[i], where each function of the original file begins and ends:
//
//   {"names": ["<global>", "checkStock"], "mappings": "AAA,OC;CDM"}
//
// `mappings` is a list of segments, ";" between lines of the original file and "," within one;
// each segment is base64 VLQ [column delta, name index delta, line delta]. The column restarts at
// 0 after every ";", the name index and the line (from 1) accumulate across the whole list. A
// segment says "from here on, until the next segment, the code belongs to this function": the
// function of a position is the last segment at or before it. This is how metro-symbolicate names
// the function a React Native frame is in; a source map alone names only the token at a position.

interface FunctionStart {
  line: number;
  column: number;
  name: string;
}

export interface FunctionMaps {
  /** The function around a 1-based line and 0-based column of `source`; null when unknown. */
  functionAt(source: string, line: number, column: number): string | null;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** The numbers of one VLQ segment, or null when it is not valid base64 VLQ. */
function decodeVlq(segment: string): number[] | null {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = DIGIT.get(char);
    if (digit === undefined || shift > 30) return null;
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  return shift === 0 ? values : null;
}

function decodeFunctionMap(entry: unknown): FunctionStart[] | null {
  const map = entry as { names?: unknown; mappings?: unknown } | null;
  if (typeof map !== 'object' || map === null) return null;
  const { names, mappings } = map;
  if (!Array.isArray(names) || typeof mappings !== 'string') return null;
  const starts: FunctionStart[] = [];
  let line = 1;
  let nameIndex = 0;
  for (const lineMappings of mappings.split(';')) {
    let column = 0;
    for (const segment of lineMappings.split(',')) {
      if (segment === '') continue;
      const [columnDelta, nameDelta, lineDelta = 0] = decodeVlq(segment) ?? [];
      if (columnDelta === undefined || nameDelta === undefined) return null;
      line += lineDelta;
      nameIndex += nameDelta;
      column += columnDelta;
      const name = names[nameIndex];
      if (typeof name !== 'string') return null;
      starts.push({ line, column, name });
    }
  }
  return starts;
}

/**
 * The function maps of a parsed source map, by source as the source-map library names it
 * (`sources`, resolved like the library resolves them, in the same order). A malformed or absent
 * entry gives no names for that source; it never fails the map.
 */
export function readFunctionMaps(map: Record<string, unknown>, sources: readonly string[]): FunctionMaps {
  const metadata = map.x_facebook_sources;
  const decoded = new Map<string, FunctionStart[] | null>();
  const bySource = new Map<string, unknown>();
  if (Array.isArray(metadata)) {
    sources.forEach((source, i) => {
      const entry: unknown = metadata[i];
      if (Array.isArray(entry)) bySource.set(source, entry[0]);
    });
  }
  return {
    functionAt(source, line, column) {
      if (!bySource.has(source)) return null;
      let starts = decoded.get(source);
      if (starts === undefined) {
        starts = decodeFunctionMap(bySource.get(source));
        decoded.set(source, starts);
      }
      if (!starts) return null;
      // The last start at or before (line, column); starts are in file order.
      let lo = 0;
      let hi = starts.length - 1;
      let found: FunctionStart | undefined;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const s = starts[mid]!;
        if (s.line < line || (s.line === line && s.column <= column)) {
          found = s;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      return found?.name ?? null;
    },
  };
}
