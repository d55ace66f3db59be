import { mkdirSync, writeFileSync } from 'node:fs';
import { bundleViewHost } from './bundle-view-host';

// `pnpm build` of the console: the browser host script beside the app's bundle (dist/), where a
// built console reads it (view-host-script.ts).
const out = new URL('../../dist/view-host.js', import.meta.url);
mkdirSync(new URL('.', out), { recursive: true });
writeFileSync(out, await bundleViewHost());
