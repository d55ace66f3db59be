import { AppState, type AppStateStatus } from 'react-native';
import type { AppVisibility, Lifecycle } from '../platform';

// `inactive` (iOS: the app switcher, a call, Control Center) is still the user's session.
const visibilityOf = (state: AppStateStatus | null | undefined): AppVisibility =>
  state === 'background' ? 'background' : 'active';

/** The app's foreground and background from React Native's AppState. */
export function appStateLifecycle(): Lifecycle {
  return {
    current: () => visibilityOf(AppState.currentState),
    onChange(listener) {
      let last = visibilityOf(AppState.currentState);
      const subscription = AppState.addEventListener('change', (state) => {
        const next = visibilityOf(state);
        if (next === last) return;
        last = next;
        listener(next);
      });
      return () => subscription.remove();
    },
  };
}
