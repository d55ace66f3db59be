import type { ClickHouse } from '@svc/clickhouse';
import {
  CAMPAIGN_INTENT,
  CAMPAIGNS,
  DEMO_EXPERIMENTS,
  PURCHASE_LIFT,
  STEP_RATES,
  WEEKDAY_FACTOR,
} from '@svc/demo-data';

// Product analytics events for the analytics benchmark, generated inside ClickHouse with the demo
// generator's distributions (packages/demo-data shop-funnel.ts, experiments.ts, events.ts): the
// same step rates per platform, campaign intents, weekday factors, campaign weights, 35% organic
// users, 1 to 8 sessions per user, the checkout_cta_v2 lift and the no-effect home_banner_copy.
// The demo's own streaming iterator makes ~40k events/s in JS, ~4 minutes for 10M before any
// insert; this makes the same shape at in-engine speed.

const DAY_MS = 86_400_000;
/** Users per INSERT: each statement stays well inside the engine's per-query time limit. */
const USERS_PER_CHUNK = 40_000;
/** Events per user with these distributions (2.8 sessions of ~10.3 events); sizes the user count. */
export const EVENTS_PER_USER = 28.8;

const PLATFORMS = ['ios', 'android', 'web'] as const;
const WEEKDAYS_MONDAY_FIRST = [1, 2, 3, 4, 5, 6, 0].map((d) => WEEKDAY_FACTOR[d]!);

function campaignParams() {
  let total = 0;
  const upTo: number[] = [];
  for (const [, weight] of CAMPAIGNS) {
    total += weight;
    upTo.push(total);
  }
  return {
    c_upto: upTo,
    c_total: total,
    c_source: CAMPAIGNS.map(([[s]]) => s),
    c_medium: CAMPAIGNS.map(([[, m]]) => m),
    c_name: CAMPAIGNS.map(([[, , c]]) => c),
    c_intent: CAMPAIGNS.map(([[, , c]]) => CAMPAIGN_INTENT[c] ?? 1),
  };
}

/** Inserts ~`events` events for `projectId` over the last `days` days, and the two experiments. */
export async function loadShopEvents(
  ch: ClickHouse,
  projectId: string,
  events: number,
  now: number,
  days = 30,
) {
  const users = Math.max(1, Math.round(events / EVENTS_PER_USER));
  const [cta, banner] = DEMO_EXPERIMENTS;
  const params = {
    p: projectId,
    now,
    span: days * DAY_MS - 30 * 60_000,
    rates: PLATFORMS.map((p) => [...STEP_RATES[p]]),
    weekday: WEEKDAYS_MONDAY_FIRST,
    lift: PURCHASE_LIFT,
    cta_key: cta!.experiment_key,
    cta_variants: cta!.variants,
    banner_key: banner!.experiment_key,
    banner_variants: banner!.variants,
    ...campaignParams(),
  };
  for (let first = 0; first < users; first += USERS_PER_CHUNK) {
    const count = Math.min(USERS_PER_CHUNK, users - first);
    await ch.command(
      `INSERT INTO events (project_id, event_name, timestamp, user_id, session_id, platform, app_version, properties)
       SELECT {p:String}, e.1, fromUnixTimestamp64Milli(toInt64(start_ms + e.2)), uid, sid, platform, version, e.3
       FROM (
         SELECT
           intDiv(number, 8) AS u, number % 8 AS k,
           concat('user_', toString(u)) AS uid,
           concat('sess_', toString(u), '_', toString(k)) AS sid,
           -- sessions per user: 1, 2, 3, 5, 8 with weights 3, 3, 2, 1, 1 (the demo's)
           arrayElement([1, 1, 1, 2, 2, 2, 3, 3, 5, 8], 1 + cityHash64(u, 1) % 10) AS sessions,
           1 + cityHash64(u, 2) % 10 AS pk,
           multiIf(pk <= 4, 1, pk <= 8, 2, 3) AS platform_index,
           arrayElement(['ios', 'android', 'web'], platform_index) AS platform,
           concat('3.', toString(cityHash64(u, 3) % 4), '.0') AS version,
           -- 65% of users arrive from a campaign (weighted as CAMPAIGNS), the rest organically
           cityHash64(u, 4) % 100 < 65 AS attributed,
           if(attributed, arrayFirstIndex(x -> (cityHash64(u, 5) % {c_total:UInt32}) < x, {c_upto:Array(UInt32)}), 0) AS c,
           if(c = 0, 1.0, arrayElement({c_intent:Array(Float64)}, c)) AS intent,
           if(c = 0, '{"organic":true}',
             concat('{"utm_source":"', arrayElement({c_source:Array(String)}, c),
               '","utm_medium":"', arrayElement({c_medium:Array(String)}, c),
               '","utm_campaign":"', arrayElement({c_name:Array(String)}, c), '"}')) AS acquisition,
           arrayElement({cta_variants:Array(String)}, 1 + cityHash64(uid, {cta_key:String}) % length({cta_variants:Array(String)})) AS cta,
           arrayElement({banner_variants:Array(String)}, 1 + cityHash64(uid, {banner_key:String}) % length({banner_variants:Array(String)})) AS banner,
           -- first activity skewed towards now (age ~ span * r^1.7), later sessions spread up to now
           toInt64({now:Int64} - 30 * 60000 - {span:UInt64} * pow((cityHash64(u, 6) % 1000000) / 1000000.0, 1.7)) AS first_ms,
           toInt64(first_ms + (({now:Int64} - 30 * 60000 - first_ms) * k) / sessions
             + cityHash64(u, k, 7) % 600000) AS start_ms,
           arrayElement({weekday:Array(Float64)}, toDayOfWeek(fromUnixTimestamp64Milli(start_ms), 0, 'UTC')) AS wd,
           arrayElement({rates:Array(Array(Float64))}, platform_index) AS r,
           (cityHash64(u, k, 11) % 1000000) / 1000000.0 < least(0.95, r[1] * wd) AS s1,
           (cityHash64(u, k, 12) % 1000000) / 1000000.0 < least(0.95, r[2] * intent) AS s2,
           (cityHash64(u, k, 13) % 1000000) / 1000000.0 < least(0.95, r[3] * intent) AS s3,
           (cityHash64(u, k, 14) % 1000000) / 1000000.0
             < least(0.95, r[4] * intent * wd * if(cta = 'new_cta', {lift:Float64}, 1.0)) AS s4,
           if(NOT s1, 0, if(NOT s2, 1, if(NOT s3, 2, if(NOT s4, 3, 4)))) AS reached,
           cityHash64(u, k, 15) AS h,
           arrayJoin(arrayFilter(x -> x.4, [
             ('first_open', 0, acquisition, k = 0),
             ('app_open', 0, '{"launch":"cold","screen":"Home"}', true),
             ('$exposure', 0, concat('{"experiment_key":"', {cta_key:String}, '","variant":"', cta, '"}'), true),
             ('$exposure', 0, concat('{"experiment_key":"', {banner_key:String}, '","variant":"', banner, '"}'), true),
             ('screen_view', 8000, '{"screen":"Feed","previous_screen":"Home"}', true),
             ('screen_view', 16000, '{"screen":"Search","previous_screen":"Feed"}', true),
             ('screen_view', 24000, '{"screen":"ProductDetail","previous_screen":"Search"}', true),
             ('screen_view', 32000, '{"screen":"Cart","previous_screen":"ProductDetail"}', true),
             ('screen_view', 40000, '{"screen":"Profile","previous_screen":"Cart"}', true),
             ('search', 18000, '{"screen":"Search","query":"rain jacket"}', h % 2 = 0),
             ('product_view', 26000, concat('{"screen":"ProductDetail","product_id":"sku_', toString(1000 + h % 100), '"}'), h % 2 = 1),
             ('view_item', 45000 + h % 9000, concat('{"product_id":"sku_', toString(1000 + h % 100), '"}'), reached >= 1),
             ('add_to_cart', 60000 + h % 9000, '{"currency":"EUR"}', reached >= 2),
             ('checkout', 75000 + h % 9000, '{"currency":"EUR"}', reached >= 3),
             ('purchase', 90000 + h % 9000, '{"currency":"EUR"}', reached >= 4)
           ])) AS e
         FROM numbers({from:UInt64}, {count:UInt64})
         WHERE k < sessions
       )`,
      { ...params, from: first * 8, count: count * 8 },
    );
  }
  for (const e of DEMO_EXPERIMENTS)
    await ch.command(
      `INSERT INTO experiments (project_id, experiment_key, goal_event, variants, baseline, updated_at)
       SELECT {p:String}, {key:String}, {goal:String}, {variants:Array(String)}, {baseline:String},
         fromUnixTimestamp64Milli({now:Int64})`,
      {
        p: projectId,
        key: e.experiment_key,
        goal: e.goal_event,
        variants: e.variants,
        baseline: e.baseline ?? 'control',
        now,
      },
    );
}
