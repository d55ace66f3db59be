import { createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import AsyncStorage, { createAsyncStorage } from '@react-native-async-storage/async-storage';
import { LogFiles } from '../log-files';
import { asyncStorage, SDK_DATABASE } from './async-storage';
import { fflateCompression } from './fflate-compression';
import { nobleCrypto } from './noble-crypto';

// The storage, crypto and compression a phone runs, under the react-native preset: AsyncStorage
// through its own jest mock, noble and fflate as they are (pure JavaScript: what is tested here is
// what ships), checked against node:crypto and zlib.

describe('AsyncStorage as the SDK storage', () => {
  it('keeps the SDK state in a database of its own, apart from the app keys', async () => {
    const storage = asyncStorage();
    await AsyncStorage.setItem('app.theme', 'dark');
    await storage.setItem('svc.device_id', 'dev-1');
    expect(await storage.getItem('svc.device_id')).toBe('dev-1');
    expect(await createAsyncStorage(SDK_DATABASE).getItem('svc.device_id')).toBe('dev-1');
    expect(await AsyncStorage.getItem('svc.device_id')).toBeNull();
    expect(await storage.getAllKeys()).toEqual(['svc.device_id']);
    await storage.removeItem('svc.device_id');
    expect(await storage.getItem('svc.device_id')).toBeNull();
  });

  it('holds the day log as chunks: what was written reads back line for line, after a restart too', async () => {
    const storage = asyncStorage(createAsyncStorage('log-test'));
    const files = new LogFiles(storage);
    await files.load();
    const at = Date.parse('2026-11-20T09:00:00.000Z');
    const written = Array.from({ length: 2000 }, (_, i) => ({
      message: `line ${i} ${'é'.repeat(i % 7)}`,
      i,
    }));
    for (const { message, i } of written) files.write('INFO', message, { i }, 'Cart', at + i);
    await files.flush();
    const again = new LogFiles(storage);
    await again.load();
    const text = await again.read('2026-11-20', again.seqsOf('2026-11-20'));
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(
      written.map(({ message, i }) => ({
        ts: new Date(at + i).toISOString(),
        level: 'INFO',
        tag: 'Cart',
        message,
        i,
      })),
    );
    // Chunks of at most ~16 KiB: many keys, none a large value.
    expect(again.seqsOf('2026-11-20').length).toBeGreaterThan(2);
  });
});

describe('noble crypto', () => {
  it('HMAC-SHA256 equals node:crypto (RFC 4231 case 2, and a random key and message)', () => {
    const key = new TextEncoder().encode('Jefe');
    const data = new TextEncoder().encode('what do ya want for nothing?');
    expect(Buffer.from(nobleCrypto.hmacSha256(key, data) as Uint8Array).toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const randomKey = randomBytes(32);
    const message = randomBytes(1000);
    expect(Buffer.from(nobleCrypto.hmacSha256(randomKey, message) as Uint8Array)).toEqual(
      createHmac('sha256', randomKey).update(message).digest(),
    );
  });

  it('AES-256-GCM: ciphertext then tag, which node:crypto decrypts and authenticates', () => {
    const key = randomBytes(32);
    const iv = nobleCrypto.randomBytes(12);
    const plain = randomBytes(70_000);
    const sealed = nobleCrypto.aes256GcmEncrypt(key, iv, plain) as Uint8Array;
    expect(sealed.length).toBe(plain.length + 16);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    expect(
      Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]),
    ).toEqual(plain);
  });

  it('random bytes from crypto.getRandomValues, differing call to call', () => {
    const a = nobleCrypto.randomBytes(12);
    const b = nobleCrypto.randomBytes(12);
    expect(a).toHaveLength(12);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });
});

describe('fflate compression', () => {
  it('gzip that zlib inflates to the same bytes, sliced across several slices', async () => {
    const text = Array.from(
      { length: 20_000 },
      (_, i) => `{"ts":"t","level":"INFO","message":"m ${i}"}\n`,
    ).join('');
    const bytes = new TextEncoder().encode(text);
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024);
    const gz = await fflateCompression.gzip(bytes);
    expect(gunzipSync(gz).toString('utf8')).toBe(text);
    expect(gunzipSync(await fflateCompression.gzip(new Uint8Array(0))).length).toBe(0);
  });
});
