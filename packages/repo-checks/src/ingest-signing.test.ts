import { filesUnder, read } from './repository';

// One way to sign an ingest request: sdk-core's ingestSignature writes the signed text and the
// `v1=` value, whatever computes the HMAC (node:crypto, Web Crypto, a React Native module); the
// SDKs, the CLI, ingest-auth's check and the helpers of tests and benches all go through it. A
// second writer of that value is a second place the format could drift. Test files themselves may
// spell a value out (a known answer, a forged signature).

const THE_WRITER = 'packages/sdk-core/src/ingest-signing.ts';

const SOURCES = ['apps', 'packages']
  .flatMap((dir) => filesUnder(dir, ['.ts', '.tsx', '.mts', '.mjs']))
  .filter((path) => !/\.test\.tsx?$/.test(path) && !path.startsWith('packages/repo-checks/'));

/** `v1=${...}` or a 'v1=' / "v1=" string a hex digest is appended to: a signature being written. */
const WRITES_V1 = /`v1=\$\{|['"]v1=['"]/;

it('only sdk-core ingest-signing.ts writes the v1= ingest signature', () => {
  const writers = SOURCES.filter((path) => WRITES_V1.test(read(path)));
  expect(writers).toEqual([THE_WRITER]);
});
