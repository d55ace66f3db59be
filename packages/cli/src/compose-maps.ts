import remapping from '@jridgewell/remapping';
import type { SourceMapJson } from './source-map-json';

// A Hermes build runs bytecode compiled from Metro's bundle: Hermes's map goes from bytecode
// offsets to bundle positions, Metro's from bundle positions to the app's sources. Their
// composition maps a Hermes frame straight to the source, as react-native's
// scripts/compose-source-maps.js does; the metadata React Native's symbolicators read is carried
// over: Metro's per-source function maps (x_facebook_sources) and ignore list
// (x_google_ignoreList), both renumbered to the composed map's sources, and Hermes's function
// offsets (x_hermes_function_offsets, keyed by bytecode).

export function composeHermesMap(metro: SourceMapJson, hermes: SourceMapJson, file: string): SourceMapJson {
  // Every source of Hermes's map is the bundle Metro wrote (depth 1); Metro's sources are the
  // originals (deeper: no map).
  const composed = remapping(hermes as never, (_source, ctx) => (ctx.depth === 1 ? (metro as never) : null));
  const out = JSON.parse(composed.toString()) as SourceMapJson & { sources: (string | null)[] };
  out.file = file;
  const metroSources = Array.isArray(metro.sources) ? (metro.sources as (string | null)[]) : [];
  const functionMaps = metro.x_facebook_sources;
  if (Array.isArray(functionMaps)) {
    out.x_facebook_sources = out.sources.map((source) => {
      const i = source === null ? -1 : metroSources.indexOf(source);
      return i >= 0 ? (functionMaps[i] ?? null) : null;
    });
  }
  const ignored = metro.x_google_ignoreList;
  if (Array.isArray(ignored)) {
    const names = new Set(ignored.map((i) => metroSources[i as number]).filter((s) => typeof s === 'string'));
    const list = out.sources.flatMap((source, i) => (source !== null && names.has(source) ? [i] : []));
    if (list.length > 0) out.x_google_ignoreList = list;
  }
  if (hermes.x_hermes_function_offsets !== undefined)
    out.x_hermes_function_offsets = hermes.x_hermes_function_offsets;
  return out;
}
