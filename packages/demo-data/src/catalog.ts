import type { DemoFrame, Platform } from './records';

// Fixed vocabularies the generator draws from. Crash kinds have fixed in-app frames so that
// crashes of one kind share a signature (one issue), as in a real project.

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

export interface CrashKind {
  error_type: string;
  message: string;
  frames: DemoFrame[];
}

export const CRASH_KINDS: Record<Platform, readonly CrashKind[]> = {
  ios: [
    {
      error_type: 'EXC_BAD_ACCESS',
      message: 'KERN_INVALID_ADDRESS at 0x0000000000000010',
      frames: [
        { function: 'objc_msgSend', file: 'libobjc.A.dylib', in_app: false },
        { function: 'FeedCell.configure(with:)', file: 'FeedCell.swift', line: 88, in_app: true },
        {
          function: 'FeedViewController.tableView(_:cellForRowAt:)',
          file: 'FeedViewController.swift',
          line: 142,
          in_app: true,
        },
        { function: 'UITableView._createPreparedCell', file: 'UIKitCore', in_app: false },
        {
          function: 'AppDelegate.application(_:didFinishLaunchingWithOptions:)',
          file: 'AppDelegate.swift',
          line: 20,
          in_app: true,
        },
      ],
    },
    {
      error_type: 'NSInvalidArgumentException',
      message: '-[__NSArrayM insertObject:atIndex:]: object cannot be nil',
      frames: [
        { function: '__exceptionPreprocess', file: 'CoreFoundation', in_app: false },
        { function: 'CartStore.add(_:)', file: 'CartStore.swift', line: 51, in_app: true },
        {
          function: 'ProductDetailViewModel.addToCart()',
          file: 'ProductDetailViewModel.swift',
          line: 77,
          in_app: true,
        },
        {
          function: 'ProductDetailView.body.getter',
          file: 'ProductDetailView.swift',
          line: 30,
          in_app: true,
        },
      ],
    },
  ],
  android: [
    {
      error_type: 'java.lang.NullPointerException',
      message: "Attempt to invoke virtual method 'int java.lang.String.length()' on a null object reference",
      frames: [
        {
          function: 'com.shop.feed.FeedAdapter.onBindViewHolder',
          file: 'FeedAdapter.kt',
          line: 64,
          in_app: true,
        },
        { function: 'com.shop.feed.FeedAdapter.bindPrice', file: 'FeedAdapter.kt', line: 101, in_app: true },
        {
          function: 'androidx.recyclerview.widget.RecyclerView$Adapter.bindViewHolder',
          file: 'RecyclerView.java',
          line: 7254,
          in_app: false,
        },
        { function: 'com.shop.MainActivity.onResume', file: 'MainActivity.kt', line: 45, in_app: true },
      ],
    },
    {
      error_type: 'java.lang.IllegalStateException',
      message: 'Fragment CheckoutFragment not attached to a context.',
      frames: [
        {
          function: 'androidx.fragment.app.Fragment.requireContext',
          file: 'Fragment.java',
          line: 994,
          in_app: false,
        },
        {
          function: 'com.shop.checkout.CheckoutFragment.showReceipt',
          file: 'CheckoutFragment.kt',
          line: 210,
          in_app: true,
        },
        {
          function: 'com.shop.checkout.CheckoutFragment$onPaid$1.invokeSuspend',
          file: 'CheckoutFragment.kt',
          line: 188,
          in_app: true,
        },
      ],
    },
  ],
  web: [
    {
      error_type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      frames: [
        { function: 'renderCartLine', file: 'src/cart/CartLine.tsx', line: 23, in_app: true },
        { function: 'CartPage', file: 'src/cart/CartPage.tsx', line: 58, in_app: true },
        {
          function: 'renderWithHooks',
          file: 'node_modules/react-dom/cjs/react-dom.production.js',
          line: 1520,
          in_app: false,
        },
      ],
    },
    {
      error_type: 'ChunkLoadError',
      message: 'Loading chunk 42 failed. (missing: https://shop.example/static/js/42.chunk.js)',
      frames: [
        { function: 'requireEnsure', file: 'webpack/runtime/ensure chunk', in_app: false },
        { function: 'loadCheckout', file: 'src/routes.tsx', line: 12, in_app: true },
      ],
    },
  ],
};
