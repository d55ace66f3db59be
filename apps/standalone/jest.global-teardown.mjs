import { rmSync } from 'node:fs';
import { dirname } from 'node:path';

/** Removes the bundles jest.global-setup.mjs built for this run. */
export default function globalTeardown() {
  const app = process.env.SVC_TEST_BUNDLES;
  if (app) rmSync(dirname(app), { recursive: true, force: true });
}
