// What a React Native app has at runtime that react-native's types do not declare, and that the
// SDK (and the sdk-core it shares) uses: Hermes's TextEncoder (React Native 0.74+) and TextDecoder
// (0.85+; the SDK works without it), React Native's performance.now(), and crypto.getRandomValues
// from react-native-get-random-values, which the SDK's entry imports.

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare var TextDecoder: undefined | (new (label?: string) => { decode(input?: Uint8Array): string });

declare var performance: { now(): number };

declare var crypto: { getRandomValues<T extends ArrayBufferView | null>(array: T): T };

declare module 'react-native-get-random-values';
