// One session's memory samples against time, with the tool's least-squares line: drawn with the
// tool's slope through the samples' centroid, which is the least-squares line itself when the
// samples are the ones the tool fitted. The centroid and the line's ends are only drawing.

import { svg } from './dom';
import { exact, num } from './format';

const WIDTH = 600;
const HEIGHT = 200;
const PAD = 24;
const MINUTE_MS = 60_000;

export interface MemorySample {
  ms: number;
  mb: number;
  timestamp: string;
}

/** `slope` in MB per minute, or null for the points alone. */
export function memoryChart(samples: MemorySample[], slope: number | null): SVGElement {
  const t0 = Math.min(...samples.map((s) => s.ms));
  const t1 = Math.max(...samples.map((s) => s.ms));
  const meanMs = samples.reduce((sum, s) => sum + s.ms, 0) / samples.length;
  const meanMb = samples.reduce((sum, s) => sum + s.mb, 0) / samples.length;
  const fitted = (ms: number) => meanMb + ((slope ?? 0) * (ms - meanMs)) / MINUTE_MS;
  const ends = slope === null ? [] : [fitted(t0), fitted(t1)];
  const low = Math.min(...samples.map((s) => s.mb), ...ends);
  const high = Math.max(...samples.map((s) => s.mb), ...ends);
  const x = (ms: number) => PAD + ((ms - t0) / (t1 - t0 || 1)) * (WIDTH - 2 * PAD);
  const y = (mb: number) => HEIGHT - PAD - ((mb - low) / (high - low || 1)) * (HEIGHT - 2 * PAD);
  const chart = svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, 'aria-hidden': 'true', 'data-chart': 'memory' },
    svg('line', { class: 'axis', x1: PAD, x2: WIDTH - PAD, y1: HEIGHT - PAD, y2: HEIGHT - PAD }),
  );
  if (slope !== null)
    chart.appendChild(
      svg('line', {
        class: 'line',
        x1: x(t0),
        y1: y(fitted(t0)),
        x2: x(t1),
        y2: y(fitted(t1)),
        'data-slope': exact(slope),
      }),
    );
  for (const s of samples)
    chart.appendChild(
      svg(
        'circle',
        { class: 'bar', cx: x(s.ms), cy: y(s.mb), r: 3, 'data-ms': s.ms, 'data-value': exact(s.mb) },
        svg('title', {}, `${s.timestamp}: ${num(s.mb)} MB`),
      ),
    );
  const first = samples.find((s) => s.ms === t0);
  const last = samples.find((s) => s.ms === t1);
  chart.appendChild(svg('text', { x: PAD, y: HEIGHT - 6 }, first?.timestamp ?? ''));
  if (t1 > t0)
    chart.appendChild(
      svg('text', { x: WIDTH - PAD, y: HEIGHT - 6, 'text-anchor': 'end' }, last?.timestamp ?? ''),
    );
  return chart;
}
