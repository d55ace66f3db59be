import { execFileSync } from 'node:child_process';
import { HASH_SLICE_BYTES, updateInSlices } from './hash-in-slices';
import { signatureMatches, signIngestBody, timestampFresh } from './signature';

describe('ingest signature', () => {
  const body = '{"logs":[{"message":"50% off_ \\u00e9"}]}';

  it('equals the openssl command of the README example', () => {
    // The README signs with: printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //'
    const hex = execFileSync(
      'sh',
      ['-c', `printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //'`],
      { env: { PATH: process.env.PATH, TS: '1700000000', BODY: body, SECRET: 'k3y' } },
    )
      .toString()
      .trim();
    expect(signIngestBody('k3y', 1700000000, body)).toBe(`v1=${hex}`);
  });

  it('accepts only the exact signature, body and secret', async () => {
    const sig = signIngestBody('k3y', '1700000000', body);
    expect(await signatureMatches('k3y', '1700000000', Buffer.from(body), sig)).toBe(true);
    expect(await signatureMatches('k3y', '1700000001', Buffer.from(body), sig)).toBe(false);
    expect(await signatureMatches('other', '1700000000', Buffer.from(body), sig)).toBe(false);
    expect(await signatureMatches('k3y', '1700000000', Buffer.from(`${body} `), sig)).toBe(false);
    expect(await signatureMatches('k3y', '1700000000', Buffer.from(body), sig.toUpperCase())).toBe(false);
    expect(await signatureMatches('k3y', '1700000000', Buffer.from(body), 'v1=')).toBe(false);
  });

  it('checks a big body a megabyte at a time, with the same answer as one hash', async () => {
    const big = Buffer.alloc(5 * HASH_SLICE_BYTES + 123, 'x');
    const sig = signIngestBody('k3y', '1700000000', big);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      expect(await signatureMatches('k3y', '1700000000', big, sig)).toBe(true);
      big[big.length - 1] = 0x79;
      expect(await signatureMatches('k3y', '1700000000', big, sig)).toBe(false);
    } finally {
      clearInterval(ticker);
    }
    // Five pauses a check: the loop turned between the megabytes.
    expect(turns).toBeGreaterThan(0);
    const pauses = await updateInSlices({ update: () => undefined }, big);
    expect(pauses).toBe(5);
  });

  it('allows 300 seconds of clock skew either way, and only unix seconds', () => {
    const now = 1_700_000_000_000;
    expect(timestampFresh('1700000300', now)).toBe(true);
    expect(timestampFresh('1699999700', now)).toBe(true);
    expect(timestampFresh('1700000301', now)).toBe(false);
    expect(timestampFresh('1699999699', now)).toBe(false);
    expect(timestampFresh('1700000000.5', now)).toBe(false);
    expect(timestampFresh('-1', now)).toBe(false);
  });
});
