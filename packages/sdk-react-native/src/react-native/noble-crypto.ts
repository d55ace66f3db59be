import { gcm } from '@noble/ciphers/aes.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { SdkCrypto } from '../platform';

/**
 * HMAC-SHA256 and AES-256-GCM in audited pure JavaScript (@noble/hashes, @noble/ciphers): no
 * native module to link, so it runs in Expo Go, bare apps and jest alike, and the code tested is
 * the code shipped. Random bytes come from `crypto.getRandomValues`, which
 * react-native-get-random-values installs (the SDK's entry imports it).
 */
export const nobleCrypto: SdkCrypto = {
  hmacSha256: (key, data) => hmac(sha256, key, data),
  aes256GcmEncrypt: (key, iv, plaintext) => gcm(key, iv).encrypt(plaintext),
  randomBytes(length) {
    const bytes = new Uint8Array(length);
    globalThis.crypto.getRandomValues(bytes);
    return bytes;
  },
};
