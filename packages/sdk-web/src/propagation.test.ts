import { propagationRule } from './propagation';

describe('which requests carry traceparent', () => {
  const page = 'https://shop.example.com';

  it('the page origin always; another origin only when named, by prefix or pattern', () => {
    const only = propagationRule([], page);
    expect(only(new URL('https://shop.example.com/api/cart'))).toBe(true);
    expect(only(new URL('https://api.example.com/v1/cart'))).toBe(false);
    // Another port or scheme is another origin.
    expect(only(new URL('http://shop.example.com/api/cart'))).toBe(false);
    expect(only(new URL('https://shop.example.com:8443/api'))).toBe(false);

    const named = propagationRule(
      ['https://api.example.com/v1/', /^https:\/\/[a-z]+\.cdn\.example\.net\//],
      page,
    );
    expect(named(new URL('https://api.example.com/v1/cart'))).toBe(true);
    expect(named(new URL('https://api.example.com/v2/cart'))).toBe(false);
    expect(named(new URL('https://eu.cdn.example.net/x'))).toBe(true);
    expect(named(new URL('https://evil.example.org/?https://api.example.com/v1/'))).toBe(false);
  });
});
