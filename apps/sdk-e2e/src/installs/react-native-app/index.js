// The app's entry, as `npx react-native init` writes one, with the SDK started first.
import { init } from '@svc/sdk-react-native';
import { checkout } from './src/cart';
import { DSN, RELEASE } from './src/config';

const sdk = init({ dsn: DSN, appVersion: RELEASE, appStart: 'manual', sampleIntervalMs: 0 });
sdk.track('app_opened');
sdk.navigation('Cart');

// The "Pay" button's handler; React Native's native side calls it when the user taps.
globalThis.__nativeHost.onPress = () => checkout({ items: [{ sku: 'tea', price: 3 }] });
