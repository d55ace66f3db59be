import { removeTestBundles } from './test-bundles';

// jest's globalTeardown for this package: removes what the global setup built.
export default function globalTeardown(): void {
  removeTestBundles();
}
