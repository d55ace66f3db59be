import type { Platform } from './records';

// Fixed vocabularies the generator draws from (crash issues live in crash-issues.ts).

export const PLATFORMS: readonly (readonly [Platform, number])[] = [
  ['ios', 4],
  ['android', 4],
  ['web', 2],
];

export const DEVICE_OS: Record<Platform, readonly string[]> = {
  ios: ['iOS 17.4', 'iOS 17.5', 'iOS 18.0'],
  android: ['Android 13', 'Android 14', 'Android 15'],
  web: ['Chrome 126', 'Safari 17.5', 'Firefox 127'],
};

/** Releases, oldest first, with how many days before `now` each shipped. */
export const RELEASES: readonly { version: string; daysAgo: number }[] = [
  { version: '2.3.0', daysAgo: 60 },
  { version: '2.4.0', daysAgo: 20 },
  { version: '2.4.1', daysAgo: 9 },
  { version: '2.5.0', daysAgo: 3 },
];

export const SCREENS = [
  'Home',
  'Feed',
  'Search',
  'ProductDetail',
  'Cart',
  'Checkout',
  'Profile',
  'Settings',
] as const;

export const ENDPOINTS: readonly (readonly [string, string])[] = [
  ['GET', '/api/v1/feed'],
  ['GET', '/api/v1/products/{id}'],
  ['GET', '/api/v1/search'],
  ['POST', '/api/v1/cart/items'],
  ['POST', '/api/v1/checkout'],
  ['GET', '/api/v1/profile'],
];

/**
 * Messages with characters that break naive search: LIKE wildcards (%, _), glob (*), regex
 * metacharacters, quotes and backslashes. log.search must match them literally.
 */
export const TRICKY_MESSAGES: readonly string[] = [
  'Discount applied: 50% off with code SAVE_50',
  'Cache hit ratio 87.5% (target 90%)',
  'Search query "shoe*" returned 0 results',
  'Filter regex ^user_[0-9]+$ matched 3 items',
  'Path C:\\logs\\*.log rotated (size > 10MB)',
  'Price (USD) = $19.99 [promo] {A|B}?',
  'feature_flag new_checkout_v2 evaluated: .* wildcard rule hit',
];
