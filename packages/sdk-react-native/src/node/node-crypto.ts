import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Compression, SdkCrypto } from '../platform';

/** node:crypto: HMAC-SHA256, AES-256-GCM (ciphertext then the 16-byte tag), random bytes. */
export const nodeCrypto: SdkCrypto = {
  hmacSha256: (key, data) => new Uint8Array(createHmac('sha256', key).update(data).digest()),
  aes256GcmEncrypt(key, iv, plaintext) {
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return new Uint8Array(body.buffer, body.byteOffset, body.length);
  },
  randomBytes: (length) => new Uint8Array(randomBytes(length)),
};

const gzipAsync = promisify(gzip);

/** zlib's gzip, on the thread pool. */
export const nodeCompression: Compression = {
  gzip: async (data) => new Uint8Array(await gzipAsync(data)),
};
