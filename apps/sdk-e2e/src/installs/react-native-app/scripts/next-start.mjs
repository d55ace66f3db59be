// The app's next start, after the crash: the SDK finds the reports the dying app left in its
// storage and sends them. The phone of this test is the Hermes command line, which has no network,
// so the next start runs the same SDK logic on Node's platform (@svc/sdk-react-native/node) over
// the storage the dying app printed.
// Usage: node scripts/next-start.mjs <storage.json> <state dir> <dsn> <app version>
import { readFileSync } from 'node:fs';
import { createMobileSdk, fileStorage, nodePlatform } from '@svc/sdk-react-native/node';

const [storageFile, dir, DSN, RELEASE] = process.argv.slice(2);
// AsyncStorage's database of the SDK, as the phone kept it.
const kept = JSON.parse(readFileSync(storageFile, 'utf8'))['svc-sdk'] ?? {};
const storage = fileStorage(dir);
for (const [key, value] of Object.entries(kept)) await storage.setItem(key, value);

const errors = [];
const sdk = createMobileSdk(
  { dsn: DSN, appVersion: RELEASE, appStart: 'manual', sampleIntervalMs: 0, onError: (e) => errors.push(e) },
  nodePlatform({ dir }),
);
await sdk.flush();
const stats = sdk.stats();
await sdk.shutdown();
process.stdout.write(`${JSON.stringify({ stats, errors })}\n`);
