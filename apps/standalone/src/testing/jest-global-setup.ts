import { buildTestBundles } from './test-bundles';

// jest's globalSetup for this package: the bundles the processes its tests start run from.
export default function globalSetup(): void {
  buildTestBundles();
}
