import type * as OidcProvider from 'oidc-provider';

// oidc-provider warns on stderr, as it is first evaluated, that it wants Node 22 or later; it is
// tested here on Node 20.20 (ESM require and the fetch it uses are there since 20.19), and a line on
// stderr at every start reads as a fault (nothing at warn or above may come before the banner).
// That one line is held back while the module loads; every other warning passes.
const RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime';

const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes(RUNTIME_WARNING)) return;
  warn(...args);
};
let loaded: typeof OidcProvider;
try {
  loaded = await import('oidc-provider');
} finally {
  console.warn = warn;
}

export const Provider = loaded.default;
export const errors = loaded.errors;
