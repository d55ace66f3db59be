// `pnpm test`: every package's jest suite through turbo, then one closing line that sums them
// up ("Tests: N passed, N failed"), so CI and people see the total without scrolling.
//
// Three lanes, one package at a time in each. The stack's end-to-end suite (@svc/standalone) is
// the longest by far, so it has a lane of its own and runs two of its files at a time (its jest
// config); the other packages share two lanes, the largest (identity, sdk-e2e) in one, the core's
// and the Go SDK's in the other, so the three end near together. Most of a test's time is a stack
// starting or a service answering, not the test's own CPU, so four jest processes keep two cores
// busy where two left them partly idle (the figures: docs/decisions.md, "Test lanes"). Arguments
// (`pnpm test -- --filter=@svc/x`) run one turbo invocation with them instead.
import { spawn } from 'node:child_process';

const STACK_LANE = ['@svc/standalone'];
const SECOND_LANE = ['@svc/identity', '@svc/sdk-e2e', '@svc/recall', '@svc/http-gateway', '@svc/console'];

const given = process.argv.slice(2);
const runs =
  given.length > 0
    ? [['--concurrency=2', ...given]]
    : [
        ['--concurrency=1', ...STACK_LANE.map((name) => `--filter=${name}`)],
        ['--concurrency=1', ...SECOND_LANE.map((name) => `--filter=${name}`)],
        ['--concurrency=1', ...[...STACK_LANE, ...SECOND_LANE].map((name) => `--filter=!${name}`)],
      ];

let passed = 0;
let failed = 0;

function countTotals(line) {
  const m = /Tests:\s+(?:(\d+) failed, )?(?:\d+ skipped, )?(?:\d+ todo, )?(\d+) passed, \d+ total/.exec(line);
  if (m) {
    failed += Number(m[1] ?? 0);
    passed += Number(m[2]);
  }
}

function run(args) {
  // --continue: a failing suite does not stop the others of its lane (every failure is seen).
  const child = spawn('pnpm', ['exec', 'turbo', 'run', 'test', '--continue', ...args], {
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    // Whole lines only: two lanes write to one stdout.
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    for (const line of lines) countTotals(line);
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      if (buffer) {
        process.stdout.write(`${buffer}\n`);
        countTotals(buffer);
      }
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
}

const codes = await Promise.all(runs.map(run));
console.log(`\nTests: ${passed} passed, ${failed} failed`);
process.exit(codes.find((code) => code !== 0) ?? 0);
