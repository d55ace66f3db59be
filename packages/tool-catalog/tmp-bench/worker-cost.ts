import { allTools } from '../src/catalog';
import { checkAnswerBytes } from '../../tool-server/src/answer-check';
const tool = allTools.find((t) => t.name === 'analytics.cohorts')!;
const day = (d: number) => ({ day: d, retained: Math.floor(Math.random() * 500), eligible: 1000 + d, rate: Math.random() });
const answer = {
  window: { from: '2025-11-23T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' },
  granularity: 'day',
  max_day: 90,
  cohorts: Array.from({ length: 365 }, (_, i) => ({ cohort: '2026-01-01', size: 1000 + i, days: Array.from({ length: 91 }, (_, d) => day(d)) })),
};
const bytes = new TextEncoder().encode(JSON.stringify(answer));
console.log('bytes', bytes.length, 'valid', tool.output.safeParse(answer).success, JSON.stringify(tool.output.safeParse(answer).error?.issues?.slice(0,2)));
const dec = new TextDecoder('utf-8', { fatal: true });
const enc = new TextEncoder();
function time(label: string, f: () => unknown, n = 20) {
  for (let i = 0; i < 3; i++) f();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  console.log(label.padEnd(30), ((performance.now() - t0) / n).toFixed(1), 'ms');
}
let text = dec.decode(bytes);
let parsed: unknown = JSON.parse(text);
time('decode', () => dec.decode(bytes));
time('parse', () => JSON.parse(text));
time('zod', () => tool.output.safeParse(parsed));
const data = tool.output.safeParse(parsed).data;
time('stringify', () => JSON.stringify(data));
time('encode', () => enc.encode(JSON.stringify(data)));
time('checkAnswerBytes', () => checkAnswerBytes(tool, bytes));
time('full job', () => { const c = checkAnswerBytes(tool, bytes); if (c.ok) enc.encode(JSON.stringify(c.value)); });
