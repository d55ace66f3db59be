import { experimentResultsOutput } from '@svc/tools-analytics';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { type RefDefinition, type RefEvent, referenceResults } from '../../testing/experiment-reference';

// experiment.results on chDB against the plain-loop reference (experiment-reference.ts), on
// seeded data sets built to hit the edge cases: a variant with zero conversions, later exposures
// to another variant, goal events before the exposure, ties (goal in the exposure's millisecond,
// two variants in one millisecond), events just outside and exactly on the window's edges.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000 + 123;
const FROM14 = NOW - 14 * DAY;
const keyA: TestKey = { keyId: 'ex_key_a', projectId: 'ex_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'ex_key_b', projectId: 'ex_b', secret: 'secret-b-0123456789', active: true };
const iso = (t: number) => new Date(t).toISOString();

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const events: RefEvent[] = [];
const definitions: RefDefinition[] = [];
const exposure = (t: number, user: string, key: string, variant?: string) =>
  events.push({
    timestamp: iso(t),
    event_name: '$exposure',
    user_id: user,
    properties: variant === undefined ? { experiment_key: key } : { experiment_key: key, variant },
  });
const goal = (t: number, user: string, name: string) =>
  events.push({ timestamp: iso(t), event_name: name, user_id: user });

/** One generated experiment: users exposed at random times, converting with a per-variant rate. */
function generate(g: number) {
  const r = rng(1000 + g);
  const key = `exp_g${g}`;
  const goalName = `goal_${g % 3}`;
  const variants = g % 3 === 0 ? ['control', 'b', 'zero'] : g % 3 === 1 ? ['a2', 'a1', 'zero'] : ['v1', 'v2'];
  definitions.push({
    experiment_key: key,
    goal_event: goalName,
    variants,
    ...(g % 3 === 2 ? { baseline: 'v2' } : {}),
  });
  const at = (lo: number, hi: number) => Math.floor(lo + r() * (hi - lo));
  const users = 15 + Math.floor(r() * 30);
  for (let u = 0; u < users; u++) {
    const user = `g${g}_u${u}`;
    const variant = variants[Math.floor(r() * variants.length)]!;
    // Exposures anywhere from 16 days back; some land before the window and do not count.
    let t = at(NOW - 16 * DAY, NOW);
    if (r() < 0.15) t = Math.floor(t / 1000) * 1000; // whole seconds: ties across users
    exposure(t, user, key, variant);
    if (r() < 0.3)
      exposure(at(t, NOW + 1), user, key, variants[(variants.indexOf(variant) + 1) % variants.length]);
    if (r() < 0.1) exposure(t, user, key, variants[0]); // same millisecond, another variant
    if (r() < 0.1) exposure(at(t, NOW), user, key); // no variant: ignored
    if (r() < 0.1) exposure(at(t, NOW), user, 'exp_other', variant);
    // Goal events: before the exposure (not counted), at its very millisecond, after it, or out of window.
    if (r() < 0.3) goal(at(NOW - 17 * DAY, t), user, goalName);
    if (variant === 'zero') continue; // this variant never converts after exposure
    const rate = variant === variants[0] ? 0.3 : 0.55;
    if (r() < 0.08) goal(t, user, goalName);
    else if (r() < rate) goal(at(t, NOW + 1), user, goalName);
    if (r() < 0.2) goal(at(t, NOW + 1), user, goalName); // repeated conversions count once
    if (r() < 0.1) goal(at(t, NOW + 1), user, `goal_${(g + 1) % 3}`); // another experiment's goal
  }
}
for (let g = 0; g < 9; g++) generate(g);

// Window edges for a hand-made experiment: exactly on `from` counts, one millisecond before not.
definitions.push({ experiment_key: 'exp_edges', goal_event: 'buy', variants: ['control', 'treat'] });
exposure(FROM14 - 1, 'e_before', 'exp_edges', 'treat');
goal(FROM14 + 5, 'e_before', 'buy');
exposure(FROM14, 'e_on_from', 'exp_edges', 'treat');
goal(FROM14, 'e_on_from', 'buy');
exposure(NOW, 'e_on_now', 'exp_edges', 'control');
goal(NOW, 'e_on_now', 'buy');
exposure(NOW - DAY, 'e_late_goal', 'exp_edges', 'control');
goal(NOW + 1000, 'e_late_goal', 'buy'); // after `now`: outside the window
exposure(NOW - 3 * DAY, 'e_switch', 'exp_edges', 'treat');
exposure(NOW - 2 * DAY, 'e_switch', 'exp_edges', 'control');
goal(NOW - DAY, 'e_switch', 'buy');
// Exposures without a definition; a definition without exposures; exposures only long ago.
exposure(NOW - 2 * DAY, 'n1', 'exp_nodef', 'red');
exposure(NOW - 2 * DAY, 'n2', 'exp_nodef', 'blue');
exposure(NOW - 3 * DAY, 'n3', 'exp_nodef', 'blue');
goal(NOW - DAY, 'n3', 'buy');
definitions.push({ experiment_key: 'exp_defonly', goal_event: 'buy', variants: ['control', 'new'] });
exposure(NOW - 40 * DAY, 'o1', 'exp_old', 'control');
// Hostile variant text comes back cleaned.
definitions.push({ experiment_key: 'exp_hostile', goal_event: 'buy', variants: ['control', 'treat'] });
exposure(NOW - DAY, 'h1', 'exp_hostile', 'ev\u202Eil\u200B');
exposure(NOW - DAY, 'h2', 'exp_hostile', 'control');

const KEYS = [
  ...Array.from({ length: 9 }, (_, g) => `exp_g${g}`),
  'exp_edges',
  'exp_nodef',
  'exp_defonly',
  'exp_old',
];

/** Numbers to 9 significant digits, so two correct computations compare equal. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number(value.toPrecision(9));
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
  return value;
}

/** Numbers with more than 13 significant digits: binary floating-point noise such as 0.40000000000000013. */
function noisyNumbers(value: unknown): number[] {
  if (typeof value === 'number') return Number(value.toPrecision(13)) === value ? [] : [value];
  if (Array.isArray(value)) return value.flatMap(noisyNumbers);
  if (value && typeof value === 'object') return Object.values(value).flatMap(noisyNumbers);
  return [];
}

describe('experiment.results on chDB', () => {
  let h: CoreHarness;

  async function results(input: Record<string, unknown>, project = 'ex_a') {
    const res = await h.callTool(project, 'experiment.results', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return experimentResultsOutput.parse(res.body);
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_experiment_results', NOW, [keyA, keyB]);
    for (let i = 0; i < events.length; i += 500)
      await h.ingest(keyA, { events: events.slice(i, i + 500) }).expect(200);
    await h.ingest(keyA, { experiments: definitions }).expect(200);
    // Project B: the same keys with marked variants and another goal. None of it may leak into A.
    await h
      .ingest(keyB, {
        events: [
          {
            timestamp: iso(NOW - DAY),
            event_name: '$exposure',
            user_id: 'g0_u0',
            properties: { experiment_key: 'exp_g0', variant: 'B-ONLY' },
          },
        ],
        experiments: [{ experiment_key: 'exp_g0', goal_event: 'B-ONLY', variants: ['control', 'B-ONLY'] }],
      })
      .expect(200);
  });
  afterAll(async () => {
    await h.close();
  });

  it('agrees with the reference on every generated and hand-made experiment, for several windows', async () => {
    let zeroVariants = 0;
    for (const key of KEYS) {
      for (const days of [14, 3, 30]) {
        const body = await results({ experiment_key: key, days });
        const expected = referenceResults(events, definitions, key, days, NOW);
        expect(rounded(body)).toEqual(rounded(expected));
        expect(noisyNumbers(body)).toEqual([]);
        zeroVariants += body.variants.filter(
          (v) => v.variant === 'zero' && v.exposed > 0 && v.converted === 0,
        ).length;
      }
    }
    // The data sets really contain the edge cases the comparison is meant to cover.
    expect(zeroVariants).toBeGreaterThan(5);
  });

  it('a variant with zero conversions gets rate 0, lift -1 and a defined z test', async () => {
    const body = await results({ experiment_key: 'exp_g0' });
    const zero = body.variants.find((v) => v.variant === 'zero')!;
    expect(zero.converted).toBe(0);
    expect(zero.rate).toBe(0);
    expect(zero.lift).toBe(-1);
    expect(zero.z_test!.z).toBeLessThan(0);
  });

  it('counts the window edges, the first exposure only, and goals at or after it', async () => {
    const body = await results({ experiment_key: 'exp_edges' });
    expect(body.baseline).toBe('control');
    const [control, treat] = body.variants;
    // control: e_on_now (goal at now: converted), e_late_goal (goal after now: not).
    expect(control).toMatchObject({
      variant: 'control',
      is_baseline: true,
      exposed: 2,
      converted: 1,
      rate: 0.5,
    });
    // treat: e_on_from (goal in the same ms), e_switch (first exposure treat, later control ignored).
    expect(treat).toMatchObject({
      variant: 'treat',
      is_baseline: false,
      exposed: 2,
      converted: 2,
      rate: 1,
      lift: 1,
    });
  });

  it('takes the baseline parameter, then the definition, then control, then the first by name', async () => {
    expect((await results({ experiment_key: 'exp_g2' })).baseline).toBe('v2'); // the definition's
    expect((await results({ experiment_key: 'exp_g0' })).baseline).toBe('control');
    expect((await results({ experiment_key: 'exp_g1' })).baseline).toBe('a1'); // first by name
    const withParam = await results({ experiment_key: 'exp_g0', baseline: 'b' });
    expect(withParam.variants.map((v) => v.variant)).toEqual(['b', 'control', 'zero']);
    expect(rounded(withParam)).toEqual(
      rounded(referenceResults(events, definitions, 'exp_g0', 14, NOW, 'b')),
    );
    const bad = await h.callTool('ex_a', 'experiment.results', {
      experiment_key: 'exp_g0',
      baseline: 'nope',
    });
    expect(bad.status).toBe(400);
  });

  it('unknown key: 200 with found false; no definition: exposures only, goal null', async () => {
    const unknown = await results({ experiment_key: 'no_such_experiment' });
    expect(unknown).toMatchObject({
      found: false,
      goal_event: null,
      baseline: null,
      variants: [],
    });
    // The keys the project has instead (definitions and exposures), each once.
    const keys = new Set([
      ...definitions.map((d) => d.experiment_key),
      ...events.filter((e) => e.event_name === '$exposure').map((e) => String(e.properties?.experiment_key)),
    ]);
    expect(unknown.known_keys).toHaveLength(keys.size);
    expect([...(unknown.known_keys ?? [])].sort()).toEqual([...keys].sort());
    expect((await results({ experiment_key: 'exp_g0' })).known_keys).toBeUndefined();
    // Another project's keys stay its own.
    const b = await h.callTool('ex_b', 'experiment.results', { experiment_key: 'no_such_experiment' });
    expect(b.body.known_keys).toEqual(['exp_g0']);
    const nodef = await results({ experiment_key: 'exp_nodef' });
    expect(nodef).toMatchObject({ found: true, goal_event: null, baseline: 'blue' });
    expect(nodef.variants.map((v) => [v.variant, v.exposed, v.converted])).toEqual([
      ['blue', 2, null],
      ['red', 1, null],
    ]);
    const old = await results({ experiment_key: 'exp_old' });
    expect(old).toMatchObject({ found: true, baseline: null, variants: [] });
    const defOnly = await results({ experiment_key: 'exp_defonly' });
    expect(defOnly.variants.map((v) => [v.variant, v.exposed, v.rate, v.z_test])).toEqual([
      ['control', 0, null, null],
      ['new', 0, null, null],
    ]);
  });

  it('keeps projects apart and cleans hostile variant names', async () => {
    const b = await h.callTool('ex_b', 'experiment.results', { experiment_key: 'exp_g0' });
    expect(b.body.variants.map((v: { variant: string; exposed: number }) => [v.variant, v.exposed])).toEqual([
      ['control', 0],
      ['B-ONLY', 1],
    ]);
    const hostile = await results({ experiment_key: 'exp_hostile' });
    const text = JSON.stringify(hostile);
    expect(text).not.toMatch(/[\u202E\u200B]/);
    expect(hostile.variants.map((v) => v.variant)).toContain('evil');
  });
});
