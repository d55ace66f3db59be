import type { Platform } from './records';

// The demo's crash issues, as their developers would read them after symbolication. The shape
// of a real project: a few dominant issues per platform, a long tail of rare ones, one issue
// fixed in a release, one that went quiet and came back, and one a release brought in. Each
// issue has its own rate per session, so crashes follow the sessions over days and versions.

/** A frame as it reads in the source (what symbolication must give back). */
export interface SourceFrame {
  function: string;
  file: string;
  line?: number;
  in_app: boolean;
  /** Native system frames only: the library they live in (no symbol file is ever uploaded for it). */
  module?: string;
}

/**
 * How the SDK reports the frames: `native` (addresses in the app's binary, Breakpad symbols),
 * `jvm` (readable Java/Kotlin frames), `js` (positions in the minified bundle, source map).
 */
export type Runtime = 'native' | 'jvm' | 'js';

export interface CrashIssue {
  /** Stable name for tests and docs; never sent. */
  key: string;
  platform: Platform;
  runtime: Runtime;
  error_type: string;
  message: string;
  /**
   * Crashes per 10,000 sessions of its platform where it can happen. A platform's issues add up to
   * about 0.6-1.3% of sessions (crash-free sessions 98.7-99.4%, a plausible shop app), and 2.2% on
   * Android from the release that brought the risk SDK's crash.
   */
  rate: number;
  /** Top of the stack first. */
  frames: SourceFrame[];
  /** The screen it happens on: the last navigation breadcrumb and the users' complaints. */
  screen: string;
  /** What the user touched just before (the last `ui` breadcrumb); default `<screen>View`. */
  touch?: string;
  /** Fixed in this release: never happens on this version or later. */
  fixedIn?: string;
  /** Came with this release: never happens on an older version. */
  introducedIn?: string;
  /** Went quiet for a while (see RECURRING_QUIET), then came back. */
  recurs?: boolean;
  /** The SDK sends the signature; otherwise the core computes it at ingest. */
  signed: boolean;
}

/** The release that fixed the cart crash (the issue that stops). */
export const CART_FIX_RELEASE = '2.4.1';

/**
 * The release that added the risk SDK (a fraud check): it initializes on the main thread (the cold
 * start regressed), checkout waits for its score (the endpoint that got slower), and on Android its
 * device fingerprint reads an identifier the app may not read (a new crash at checkout).
 */
export const RISK_SDK_RELEASE = '2.5.0';

/** Where the recurring issue is quiet, as fractions of the data window before `now`. */
export const RECURRING_QUIET = { fromAgo: 0.55, toAgo: 0.2 } as const;

const app = (fn: string, file: string, line: number): SourceFrame => ({
  function: fn,
  file,
  line,
  in_app: true,
});
const sys = (fn: string, module: string): SourceFrame => ({ function: fn, file: '', module, in_app: false });
const lib = (fn: string, file: string, line?: number): SourceFrame =>
  line === undefined ? { function: fn, file, in_app: false } : { function: fn, file, line, in_app: false };

const IOS: CrashIssue[] = [
  {
    key: 'ios-feed-cell-bad-access',
    platform: 'ios',
    runtime: 'native',
    error_type: 'EXC_BAD_ACCESS',
    message: 'KERN_INVALID_ADDRESS at 0x0000000000000010',
    rate: 45,
    screen: 'Feed',
    signed: false,
    frames: [
      sys('objc_msgSend', 'libobjc.A.dylib'),
      app('FeedCell.configure(with:)', 'Shop/Feed/FeedCell.swift', 88),
      app('FeedViewController.tableView(_:cellForRowAt:)', 'Shop/Feed/FeedViewController.swift', 142),
      sys('-[UITableView _createPreparedCellForRowAtIndexPath:willDisplay:]', 'UIKitCore'),
      app('AppDelegate.application(_:didFinishLaunchingWithOptions:)', 'Shop/App/AppDelegate.swift', 20),
    ],
  },
  {
    key: 'ios-cart-nil-insert',
    platform: 'ios',
    runtime: 'native',
    error_type: 'NSInvalidArgumentException',
    message: '-[__NSArrayM insertObject:atIndex:]: object cannot be nil',
    rate: 40,
    screen: 'ProductDetail',
    touch: 'AddToCartButton',
    fixedIn: CART_FIX_RELEASE,
    signed: true,
    frames: [
      sys('__exceptionPreprocess', 'CoreFoundation'),
      app('CartStore.add(_:)', 'Shop/Cart/CartStore.swift', 51),
      app('ProductDetailViewModel.addToCart()', 'Shop/Product/ProductDetailViewModel.swift', 77),
      app('ProductDetailView.body.getter', 'Shop/Product/ProductDetailView.swift', 30),
    ],
  },
  {
    key: 'ios-gallery-index',
    platform: 'ios',
    runtime: 'native',
    error_type: 'EXC_BREAKPOINT',
    message: 'Swift runtime failure: Index out of range',
    rate: 5,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      app('ImageCarousel.page(at:)', 'Shop/Product/ImageCarousel.swift', 41),
      app('ProductGalleryView.scrollViewDidEndDecelerating(_:)', 'Shop/Product/ProductGalleryView.swift', 67),
      sys('-[UIScrollView _scrollViewDidEndDeceleratingForDelegate]', 'UIKitCore'),
    ],
  },
  {
    key: 'ios-profile-unwrap',
    platform: 'ios',
    runtime: 'native',
    error_type: 'EXC_BAD_INSTRUCTION',
    message: 'Fatal error: Unexpectedly found nil while unwrapping an Optional value',
    rate: 3,
    screen: 'Profile',
    signed: false,
    frames: [
      app('ProfileHeaderView.render(user:)', 'Shop/Profile/ProfileHeaderView.swift', 29),
      app('ProfileViewController.viewWillAppear(_:)', 'Shop/Profile/ProfileViewController.swift', 54),
    ],
  },
  {
    key: 'ios-search-batch-update',
    platform: 'ios',
    runtime: 'native',
    error_type: 'NSInternalInconsistencyException',
    message: 'Invalid update: invalid number of rows in section 0',
    rate: 3,
    screen: 'Search',
    signed: false,
    frames: [
      sys('-[UITableView _endCellAnimationsWithContext:]', 'UIKitCore'),
      app('SearchResultsController.apply(_:)', 'Shop/Search/SearchResultsController.swift', 118),
      app('SearchViewModel.resultsDidChange()', 'Shop/Search/SearchViewModel.swift', 64),
    ],
  },
  {
    key: 'ios-token-exclusive-access',
    platform: 'ios',
    runtime: 'native',
    error_type: 'SIGABRT',
    message: 'Simultaneous accesses to 0x600002d1c0f0, but modification requires exclusive access',
    rate: 2,
    screen: 'Home',
    signed: false,
    frames: [
      sys('swift_beginAccess', 'libswiftCore.dylib'),
      app('TokenStore.refresh()', 'Shop/Network/TokenStore.swift', 73),
      app('APIClient.send(_:)', 'Shop/Network/APIClient.swift', 210),
    ],
  },
  {
    key: 'ios-settings-recursion',
    platform: 'ios',
    runtime: 'native',
    error_type: 'EXC_BAD_ACCESS',
    message: 'KERN_PROTECTION_FAILURE at 0x000000016b3f7ff8',
    rate: 1.5,
    screen: 'Settings',
    signed: true,
    frames: [
      app('SettingsViewModel.notifications.didset', 'Shop/Settings/SettingsViewModel.swift', 15),
      app('SettingsViewModel.sync()', 'Shop/Settings/SettingsViewModel.swift', 40),
      app('SettingsViewModel.notifications.didset', 'Shop/Settings/SettingsViewModel.swift', 16),
    ],
  },
];

const ANDROID: CrashIssue[] = [
  {
    key: 'android-risk-sdk-device-id',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.SecurityException',
    message: 'getDeviceId: The user 10234 does not meet the requirements to access device identifiers.',
    rate: 120,
    screen: 'Checkout',
    touch: 'PayButton',
    introducedIn: RISK_SDK_RELEASE,
    signed: false,
    frames: [
      lib('android.telephony.TelephonyManager.getDeviceId', 'TelephonyManager.java', 2092),
      app('com.shop.risk.DeviceFingerprint.collect', 'DeviceFingerprint.kt', 48),
      app('com.shop.risk.RiskClient.score', 'RiskClient.kt', 112),
      app('com.shop.checkout.CheckoutViewModel.pay', 'CheckoutViewModel.kt', 74),
    ],
  },
  {
    key: 'android-feed-npe',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.NullPointerException',
    message: "Attempt to invoke virtual method 'int java.lang.String.length()' on a null object reference",
    rate: 40,
    screen: 'Feed',
    signed: false,
    frames: [
      app('com.shop.feed.FeedAdapter.onBindViewHolder', 'FeedAdapter.kt', 64),
      app('com.shop.feed.FeedAdapter.bindPrice', 'FeedAdapter.kt', 101),
      lib('androidx.recyclerview.widget.RecyclerView$Adapter.bindViewHolder', 'RecyclerView.java', 7254),
      app('com.shop.MainActivity.onResume', 'MainActivity.kt', 45),
    ],
  },
  {
    key: 'android-checkout-detached',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.IllegalStateException',
    message: 'Fragment CheckoutFragment not attached to a context.',
    rate: 40,
    screen: 'Checkout',
    recurs: true,
    signed: true,
    frames: [
      lib('androidx.fragment.app.Fragment.requireContext', 'Fragment.java', 994),
      app('com.shop.checkout.CheckoutFragment.showReceipt', 'CheckoutFragment.kt', 210),
      app('com.shop.checkout.CheckoutFragment$onPaid$1.invokeSuspend', 'CheckoutFragment.kt', 188),
    ],
  },
  {
    key: 'android-image-decoder-segv',
    platform: 'android',
    runtime: 'native',
    error_type: 'SIGSEGV',
    message: 'Segmentation violation (invalid address 0x0)',
    rate: 12,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      sys('memcpy', 'libc.so'),
      app('image_decoder::decode_row(unsigned char const*, int)', 'jni/image/image_decoder.cpp', 214),
      app('image_decoder::decode(Image&)', 'jni/image/image_decoder.cpp', 97),
      app('Java_com_shop_image_NativeDecoder_decode', 'jni/jni_bridge.cpp', 33),
    ],
  },
  {
    key: 'android-search-index',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.IndexOutOfBoundsException',
    message: 'Index: 3, Size: 3',
    rate: 3,
    screen: 'Search',
    signed: false,
    frames: [
      lib('java.util.ArrayList.get', 'ArrayList.java', 437),
      app('com.shop.search.SearchAdapter.getItem', 'SearchAdapter.kt', 52),
      app('com.shop.search.SearchAdapter.onBindViewHolder', 'SearchAdapter.kt', 31),
    ],
  },
  {
    key: 'android-image-oom',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.OutOfMemoryError',
    message: 'Failed to allocate a 12582928 byte allocation with 4194304 free bytes and 3MB until OOM',
    rate: 3,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      lib('android.graphics.BitmapFactory.nativeDecodeStream', 'BitmapFactory.java'),
      app('com.shop.image.ImageLoader.decode', 'ImageLoader.kt', 140),
      app('com.shop.image.ImageLoader$load$2.invokeSuspend', 'ImageLoader.kt', 96),
    ],
  },
  {
    key: 'android-promo-bad-token',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'android.view.WindowManager$BadTokenException',
    message: 'Unable to add window -- token null is not valid; is your activity running?',
    rate: 2,
    screen: 'Home',
    signed: false,
    frames: [
      lib('android.view.ViewRootImpl.setView', 'ViewRootImpl.java', 1268),
      app('com.shop.promo.PromoDialog.show', 'PromoDialog.kt', 25),
      app('com.shop.home.HomeFragment.onPromoLoaded', 'HomeFragment.kt', 118),
    ],
  },
  {
    key: 'android-home-class-cast',
    platform: 'android',
    runtime: 'jvm',
    error_type: 'java.lang.ClassCastException',
    message: 'com.shop.model.Banner cannot be cast to com.shop.model.Product',
    rate: 1.5,
    screen: 'Home',
    signed: true,
    frames: [
      app('com.shop.home.HomeAdapter.onBindViewHolder', 'HomeAdapter.kt', 77),
      lib('androidx.recyclerview.widget.RecyclerView$Adapter.bindViewHolder', 'RecyclerView.java', 7254),
    ],
  },
  {
    key: 'android-audio-cache-abort',
    platform: 'android',
    runtime: 'native',
    error_type: 'SIGABRT',
    message: 'Abort message: FORTIFY: pthread_mutex_lock called on a destroyed mutex',
    rate: 1.5,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      sys('abort', 'libc.so'),
      app('audio_cache::flush()', 'jni/audio/audio_cache.cpp', 58),
      app('audio_cache::~audio_cache()', 'jni/audio/audio_cache.cpp', 21),
    ],
  },
];

// Web stacks are deep enough that each of the top three in-app frames has an in-app caller: a
// source map names tokens, so a frame's function name is read at its caller's call site.
const WEB: CrashIssue[] = [
  {
    key: 'web-cart-line-undefined',
    platform: 'web',
    runtime: 'js',
    error_type: 'TypeError',
    message: "Cannot read properties of undefined (reading 'id')",
    rate: 35,
    screen: 'Cart',
    signed: true,
    frames: [
      app('lineTotal', 'src/cart/lineTotal.ts', 7),
      app('renderCartLine', 'src/cart/CartLine.tsx', 23),
      app('CartLineList', 'src/cart/CartLine.tsx', 41),
      app('CartPage', 'src/cart/CartPage.tsx', 58),
      lib('renderWithHooks', 'node_modules/react-dom/cjs/react-dom.production.js', 1520),
    ],
  },
  {
    key: 'web-checkout-chunk',
    platform: 'web',
    runtime: 'js',
    error_type: 'ChunkLoadError',
    message: 'Loading chunk 42 failed. (missing: https://shop.example/static/js/42.chunk.js)',
    rate: 12,
    screen: 'Checkout',
    signed: false,
    frames: [
      app('__webpack_require__.e', 'webpack/runtime/ensure-chunk.js', 6),
      app('loadCheckout', 'src/routes.tsx', 12),
      app('navigateTo', 'src/router/navigate.ts', 40),
      app('onLinkClick', 'src/router/Link.tsx', 22),
    ],
  },
  {
    key: 'web-category-recursion',
    platform: 'web',
    runtime: 'js',
    error_type: 'RangeError',
    message: 'Maximum call stack size exceeded',
    rate: 3,
    screen: 'Search',
    signed: false,
    frames: [
      app('flattenCategories', 'src/catalog/categories.ts', 31),
      app('flattenCategories', 'src/catalog/categories.ts', 33),
      app('flattenCategories', 'src/catalog/categories.ts', 33),
      app('CategoryMenu', 'src/catalog/CategoryMenu.tsx', 19),
      lib('renderWithHooks', 'node_modules/react-dom/cjs/react-dom.production.js', 1520),
    ],
  },
  {
    key: 'web-sticky-header-null',
    platform: 'web',
    runtime: 'js',
    error_type: 'TypeError',
    message: "Cannot read properties of null (reading 'getBoundingClientRect')",
    rate: 3,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      app('measureStickyHeader', 'src/layout/useStickyHeader.ts', 44),
      app('onScroll', 'src/layout/useStickyHeader.ts', 21),
      app('throttled', 'src/util/throttle.ts', 14),
      app('flushThrottled', 'src/util/throttle.ts', 30),
    ],
  },
  {
    key: 'web-recommendations-json',
    platform: 'web',
    runtime: 'js',
    error_type: 'SyntaxError',
    message: 'Unexpected token \'<\', "<!DOCTYPE "... is not valid JSON',
    rate: 2,
    screen: 'Home',
    signed: true,
    frames: [
      app('parseResponse', 'src/api/client.ts', 88),
      app('fetchJson', 'src/api/client.ts', 61),
      app('loadRecommendations', 'src/home/recommendations.ts', 17),
      app('HomePage', 'src/home/HomePage.tsx', 30),
    ],
  },
  {
    key: 'web-price-invariant',
    platform: 'web',
    runtime: 'js',
    error_type: 'Error',
    message: 'Invariant failed: price must be a finite number',
    rate: 1.5,
    screen: 'ProductDetail',
    signed: false,
    frames: [
      app('invariant', 'src/util/invariant.ts', 5),
      app('formatPrice', 'src/money/format.ts', 9),
      app('PriceTag', 'src/money/PriceTag.tsx', 14),
      app('ProductCard', 'src/product/ProductCard.tsx', 48),
    ],
  },
];

export const CRASH_ISSUES: readonly CrashIssue[] = [...IOS, ...ANDROID, ...WEB];
