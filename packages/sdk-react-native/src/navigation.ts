import type { MobileSdk } from './sdk';

/** What the SDK reads of a React Navigation container ref (Expo Router's `useNavigationContainerRef()` too). */
export interface NavigationRefLike {
  addListener(event: 'state', listener: () => void): () => void;
  getCurrentRoute(): { name: string } | undefined;
}

/**
 * A `navigation` breadcrumb (and a log line) each time the current screen changes:
 * `trackNavigation(navigationRef, sdk)` once the container is ready. Returns the unsubscribe.
 */
export function trackNavigation(ref: NavigationRefLike, sdk: Pick<MobileSdk, 'navigation'>): () => void {
  let last = ref.getCurrentRoute()?.name;
  if (last) sdk.navigation(last);
  return ref.addListener('state', () => {
    const name = ref.getCurrentRoute()?.name;
    if (!name || name === last) return;
    last = name;
    sdk.navigation(name);
  });
}
