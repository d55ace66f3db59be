import type { Random } from './random';
import type { DemoBatch, DemoEvent } from './records';
import type { SessionSummary } from './session-story';

// Product analytics events, replayed from what happened in each session (screens, requests).
// A user who came from a campaign keeps it: like the analytics SDKs that store the acquisition's
// utm_* as user properties, every event of that user carries them (first touch), so funnels and
// retention can be filtered by campaign. campaign_open carries the campaign that reopened the app.
// The shop funnel (view_item, add_to_cart, checkout, purchase) and experiment exposures are in
// shop-funnel.ts, with their own random stream.

/** Campaigns users arrive from: utm_source, utm_medium, utm_campaign, and how often. */
export const CAMPAIGNS: readonly (readonly [readonly [string, string, string], number])[] = [
  [['google', 'cpc', 'summer_sale'], 5],
  [['newsletter', 'email', 'june_digest'], 3],
  [['facebook', 'paid_social', 'retargeting_q2'], 3],
  [['tiktok', 'paid_social', 'creator_launch'], 2],
  [['partner_blog', 'referral', 'spring_review'], 1],
];

const SEARCH_QUERIES = ['running shoes', 'rain jacket', '50% off', 'usb-c cable', 'gift card', 'kids_socks'];

const iso = (ms: number) => new Date(ms).toISOString();

function utm(random: Random): NonNullable<Attribution> {
  const [source, medium, campaign] = random.weighted(CAMPAIGNS);
  return { utm_source: source, utm_medium: medium, utm_campaign: campaign };
}

/** The utm_* a user was acquired by, carried by each of their events; null for an organic user. */
export type Attribution = Record<'utm_source' | 'utm_medium' | 'utm_campaign', string> | null;

/**
 * One user's events over all of their sessions; the first session carries the acquisition.
 * Returns the user's attribution (null: organic, or no session).
 */
export function writeUserEvents(random: Random, sessions: SessionSummary[], out: DemoBatch): Attribution {
  let attribution: Attribution = null;
  const ordered = [...sessions].sort((a, b) => a.startMs - b.startMs);
  ordered.forEach((summary, index) => {
    const { session, user } = summary;
    const event = (atMs: number, event_name: string, properties: NonNullable<DemoEvent['properties']>) => {
      out.events.push({
        timestamp: iso(atMs),
        event_name,
        user_id: user.user_id,
        session_id: session.session_id,
        platform: session.platform,
        app_version: session.app_version,
        properties,
      });
    };
    /** The user's campaign rides along with every event but the acquisition ones. */
    const attributed = (properties: NonNullable<DemoEvent['properties']>) =>
      attribution ? { ...properties, ...attribution } : properties;
    if (index === 0) {
      // Most users come from a campaign; the rest are organic and carry no utm_*.
      attribution = random.chance(0.65) ? utm(random) : null;
      event(summary.startMs, 'first_open', attribution ?? { organic: true });
    } else if (random.chance(0.12)) {
      event(summary.startMs, 'campaign_open', { ...utm(random), screen: 'Home' });
    }
    event(summary.startMs, 'app_open', attributed({ launch: 'cold', screen: 'Home' }));
    let previous = 'Home';
    for (const { screen, atMs } of summary.screens.slice(1)) {
      event(atMs, 'screen_view', attributed({ screen, previous_screen: previous }));
      previous = screen;
    }
    for (const request of summary.requests) {
      if (request.status !== 200) continue;
      if (request.route === '/api/v1/search') {
        event(
          request.atMs,
          'search',
          attributed({ screen: 'Search', query: random.pick(SEARCH_QUERIES), results: random.int(0, 48) }),
        );
      } else if (request.route === '/api/v1/products/{id}') {
        event(
          request.atMs,
          'product_view',
          attributed({ screen: 'ProductDetail', product_id: `sku_${random.int(1000, 1099)}` }),
        );
      }
    }
  });
  return attribution;
}
