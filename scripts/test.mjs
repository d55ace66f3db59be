// `pnpm test`: every package's jest suite through turbo, then one closing line that sums them
// up ("Tests: N passed, N failed"), so CI and people see the total without scrolling.
//
// Two lanes, one jest at a time in each (the machine CI runs on has two cores, and each suite is
// one jest worker). The stack's end-to-end suite alone is about half of all the time, so it starts
// at once in a lane of its own (left to turbo's order it started after others and the run took
// that much longer); the lane's remainder is filled with mid-sized suites so both lanes end
// together (recall's and the console's 3-4 minutes moved there when the Go SDK's suite joined the
// other and the stack's starts got cheaper). Arguments
// (`pnpm test -- --filter=@svc/x`) run one turbo invocation with them instead.
import { spawn } from 'node:child_process';

const FIRST_LANE = ['@svc/standalone', '@svc/http-gateway', '@svc/recall', '@svc/console'];

const given = process.argv.slice(2);
const runs =
  given.length > 0
    ? [['--concurrency=2', ...given]]
    : [
        ['--concurrency=1', ...FIRST_LANE.map((name) => `--filter=${name}`)],
        ['--concurrency=1', ...FIRST_LANE.map((name) => `--filter=!${name}`)],
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
