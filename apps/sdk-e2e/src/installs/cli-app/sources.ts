// The throwaway app whose build output the CLI proof uploads: its sources, with markers on the
// lines the crash frames must come back to (the expected answers are read from these texts).

export const CHECKOUT_JS = `export function checkout(cart) {
  return submitOrder(cart); // @submit
}

function submitOrder(cart) {
  const total = cart.items.length;
  return checkStock(cart.items, total); // @stock
}

function checkStock(items, total) {
  if (total > 0) throw new Error('out of stock: ' + items.join(',')); // @throw
  return true;
}
`;

/** The web page's entry and the React Native app's (a bundle that crashes when run). */
export const WEB_ENTRY = `import { checkout } from './checkout.js';
globalThis.runCheckout = () => checkout({ items: ['sku-1'] });
`;

export const GAME_C = `int physics_step(int n) {
  return n * 2 + 1;
}

int render_frame(int n) {
  return physics_step(n) + 3;
}
`;

/** The R8 mapping the Android build wrote (R8 does not run here; this is its output format). */
export const MAPPING_TXT = `# compiler: R8
# compiler_version: 8.5.35
# min_api: 24
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 5b46f4f
# pg_map_hash: SHA-256 7e8a2c14b1f0a1d1e3c0f9b5a0e0d6e7f4c3b2a19080706050403020100f0e0d
com.example.shop.Checkout -> a.a:
# {"id":"sourceFile","fileName":"Checkout.kt"}
    1:1:void <init>():10:10 -> <init>
    2:5:void submitOrder(java.lang.String):21:24 -> a
    6:9:void checkStock(int):40:43 -> b
`;

/** The 1-based line of the source line carrying `marker`. */
export function lineOf(source: string, marker: string): number {
  const index = source.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`no line with ${marker}`);
  return index + 1;
}

/** V8's `error.stack` frames: `at fn (file:line:column)` or `at file:line:column`. */
export function v8Frames(stack: string): { function: string; file: string; line: number; column: number }[] {
  return stack
    .split('\n')
    .map((l) => /^\s+at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ function: m[1] ?? '?', file: m[2]!, line: Number(m[3]), column: Number(m[4]) }));
}
