// Placeholder until the benchmark issue: the targets of DESIGN.md section 9 and the issues'
// benchmark sections will be measured here, side by side in one run. Nothing is measured yet,
// so this prints that plainly instead of a number.
console.log(
  'pnpm bench: no benchmarks yet. They arrive with the crash/analytics benchmark work (issues 3 and 4).',
);
