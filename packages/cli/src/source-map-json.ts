/** A source map as the core accepts one: JSON, version 3, `mappings` (or `sections`: an index map). */
export interface SourceMapJson {
  version: 3;
  file?: string;
  mappings?: string;
  sections?: unknown[];
  [field: string]: unknown;
}

export function parseSourceMap(bytes: Buffer | string): SourceMapJson | null {
  let value: unknown;
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch {
    return null;
  }
  const map = value as SourceMapJson;
  if (typeof map !== 'object' || map === null || map.version !== 3) return null;
  if (typeof map.mappings !== 'string' && !Array.isArray(map.sections)) return null;
  return map;
}

export const isSourceMap = (bytes: Buffer) => parseSourceMap(bytes) !== null;
