import { execFileSync } from 'node:child_process';
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

  it('accepts only the exact signature, body and secret', () => {
    const sig = signIngestBody('k3y', '1700000000', body);
    expect(signatureMatches('k3y', '1700000000', Buffer.from(body), sig)).toBe(true);
    expect(signatureMatches('k3y', '1700000001', Buffer.from(body), sig)).toBe(false);
    expect(signatureMatches('other', '1700000000', Buffer.from(body), sig)).toBe(false);
    expect(signatureMatches('k3y', '1700000000', Buffer.from(`${body} `), sig)).toBe(false);
    expect(signatureMatches('k3y', '1700000000', Buffer.from(body), sig.toUpperCase())).toBe(false);
    expect(signatureMatches('k3y', '1700000000', Buffer.from(body), 'v1=')).toBe(false);
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
