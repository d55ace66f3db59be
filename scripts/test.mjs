// `pnpm test`: every package's jest suite through turbo, then one closing line that sums them
// up ("Tests: N passed, N failed"), so CI and people see the total without scrolling.
import { spawn } from 'node:child_process';

const args = ['exec', 'turbo', 'run', 'test', '--concurrency=2', ...process.argv.slice(2)];
const child = spawn('pnpm', args, { stdio: ['inherit', 'pipe', 'inherit'] });
let passed = 0;
let failed = 0;
let buffer = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buffer += chunk;
  const lines = buffer.split('\n');
  buffer = lines.pop() ?? '';
  for (const line of lines) {
    const m = /Tests:\s+(?:(\d+) failed, )?(?:\d+ skipped, )?(?:\d+ todo, )?(\d+) passed, \d+ total/.exec(
      line,
    );
    if (m) {
      failed += Number(m[1] ?? 0);
      passed += Number(m[2]);
    }
  }
});
child.on('exit', (code) => {
  console.log(`\nTests: ${passed} passed, ${failed} failed`);
  process.exit(code ?? 1);
});
