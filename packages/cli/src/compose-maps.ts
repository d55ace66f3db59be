import remapping from '@jridgewell/remapping';
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';
import { TraceMap, traceSegment } from '@jridgewell/trace-mapping';
import type { SourceMapJson } from './source-map-json';

// A Hermes build runs bytecode compiled from Metro's bundle: Hermes's map goes from bytecode
// offsets to bundle positions, Metro's from bundle positions to the app's sources. Their
// composition maps a Hermes frame straight to the source, as react-native's
// scripts/compose-source-maps.js (metro-source-map's composeSourceMaps) does:
// - a bytecode offset whose bundle position no Metro segment covers (Metro's module wrappers)
//   stays in the map, mapped to nothing; dropped, a lookup there would find the offset before it
//   and name a function the frame is not in;
// - the metadata React Native's symbolicators read is carried over: Metro's per-source function
//   maps (x_facebook_sources) and ignore list (x_google_ignoreList), renumbered to the composed
//   map's sources, and Hermes's function offsets (x_hermes_function_offsets, keyed by bytecode).

export function composeHermesMap(metro: SourceMapJson, hermes: SourceMapJson, file: string): SourceMapJson {
  // Every source of Hermes's map is the bundle Metro wrote (depth 1); Metro's sources are the
  // originals (deeper: no map).
  const composed = remapping(hermes as never, (_source, ctx) => (ctx.depth === 1 ? (metro as never) : null), {
    decodedMappings: true,
  });
  const lines = composed.mappings as SourceMapSegment[][];
  // remapping leaves out both the offsets Metro does not cover and those that map where the
  // offset before them does (redundant); only the first kind goes back in, mapped to nothing.
  const bundle = new TraceMap(metro as never);
  const hermesLines = typeof hermes.mappings === 'string' ? decode(hermes.mappings) : [];
  hermesLines.forEach((segments, i) => {
    const line = lines[i] ?? [];
    const unmapped = segments
      .filter((s) => s.length >= 4 && traceSegment(bundle, s[2]!, s[3]!) === null)
      .map((s): SourceMapSegment => [s[0]]);
    if (unmapped.length > 0) lines[i] = [...line, ...unmapped].sort((a, b) => a[0] - b[0]);
  });
  for (let i = 0; i < lines.length; i++) lines[i] ??= [];

  const sources = composed.sources as (string | null)[];
  const out: SourceMapJson = {
    version: 3,
    file,
    sources,
    names: composed.names,
    mappings: encode(lines),
  };
  if (composed.sourcesContent?.some((c) => c != null)) out.sourcesContent = composed.sourcesContent;
  const metroSources = Array.isArray(metro.sources) ? (metro.sources as (string | null)[]) : [];
  const functionMaps = metro.x_facebook_sources;
  if (Array.isArray(functionMaps)) {
    out.x_facebook_sources = sources.map((source) => {
      const i = source === null ? -1 : metroSources.indexOf(source);
      return i >= 0 ? (functionMaps[i] ?? null) : null;
    });
  }
  const ignored = metro.x_google_ignoreList;
  if (Array.isArray(ignored)) {
    const names = new Set(ignored.map((i) => metroSources[i as number]).filter((s) => typeof s === 'string'));
    const list = sources.flatMap((source, i) => (source !== null && names.has(source) ? [i] : []));
    if (list.length > 0) out.x_google_ignoreList = list;
  }
  if (hermes.x_hermes_function_offsets !== undefined)
    out.x_hermes_function_offsets = hermes.x_hermes_function_offsets;
  return out;
}
