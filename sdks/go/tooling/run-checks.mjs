// `pnpm test` for the Go SDK: `gofmt -l`, `go vet ./...` and `go test ./...` with each toolchain of
// goToolchains(), the newest with `-race`, then one jest-style line ("Tests: N passed, N total")
// that the root runner adds to its sum. Without Go (outside CI) it says so and passes: the rest of
// the suite still runs. Why the race detector runs once: it checks our code's concurrency, which is
// the same under every toolchain, and the newest builds every file (the slog handler and the
// ServeMux patterns only build on newer releases); each race run compiles the standard library
// instrumented (Go 1.19: 71 CPU-s against 13 without, on an empty build cache), and CI pays it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goToolchains } from './find-go.mjs';

/** A line of the run's output (stdout: the root runner reads it). */
const say = (line) => process.stdout.write(`${line}\n`);

const MODULE = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchains = goToolchains();
if (toolchains.length === 0) {
  say('Go SDK: no Go 1.19+ found (apt-get install golang-go): its checks were skipped.');
  process.exit(0);
}

let passed = 0;
let failed = 0;
let broken = false;
const newest = Math.max(...toolchains.map((t) => t.minor));
for (const { go, minor } of toolchains) {
  const race = minor === newest ? ['-race'] : [];
  const run = (args) =>
    spawnSync(go, args, {
      cwd: MODULE,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: { ...process.env, CGO_ENABLED: '1' },
    });
  // gofmt's verdict is the toolchain's own: the files must be as it writes them.
  const gofmt = spawnSync(join(dirname(go === 'go' ? '' : go), 'gofmt'), ['-l', '.'], {
    cwd: MODULE,
    encoding: 'utf8',
  });
  if (gofmt.status === 0 && gofmt.stdout.trim() !== '') {
    broken = true;
    say(`go1.${minor} gofmt -l lists files not formatted:\n${gofmt.stdout}`);
  }
  const vet = run(['vet', './...']);
  if (vet.status !== 0) {
    broken = true;
    say(`go1.${minor} vet failed:\n${vet.stdout}${vet.stderr}`);
    continue;
  }
  const test = run(['test', ...race, '-count=1', '-json', './...']);
  const output = new Map();
  for (const line of test.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line);
    if (!event.Test) continue;
    const key = `${event.Package} ${event.Test}`;
    if (event.Action === 'output') output.set(key, (output.get(key) ?? '') + event.Output);
    if (event.Action === 'pass') passed++;
    if (event.Action === 'fail') {
      failed++;
      say(`go1.${minor} FAIL ${key}\n${output.get(key) ?? ''}`);
    }
  }
  if (test.status !== 0 && failed === 0) {
    broken = true;
    say(`go1.${minor} test failed to run:\n${test.stderr}`);
  } else {
    say(`go1.${minor}: go vet clean; go test ${race.join(' ')}${race.length ? ' ' : ''}done`);
  }
}
if (broken) failed++;
say(`Tests:       ${failed > 0 ? `${failed} failed, ` : ''}${passed} passed, ${passed + failed} total`);
process.exit(failed > 0 ? 1 : 0);
