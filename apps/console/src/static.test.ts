import request from 'supertest';
import { createConsoleApp } from './app';
import type { IdentityApi } from './identity-api';
import { sessionCookies } from './session';
import type { ToolCaller } from './tool-calls';

// What every page loads: the stylesheets and the script, from this origin only, with headers that
// keep our own form posts' Origin (the CSRF check needs it) and tell other sites nothing.
const app = createConsoleApp({
  config: {
    gatewayPublicUrl: 'http://localhost:8092',
    publicUrl: 'http://localhost:8094',
    trustedProxies: [],
  },
  identity: {} as IdentityApi,
  tools: {} as ToolCaller,
  recall: undefined,
  cookies: sessionCookies({
    publicUrl: 'http://localhost:8094',
    internalSecret: 'a-secret-of-sixteen-chars',
  }),
  logger: {
    debug() {},
    info() {},
    warn() {},
    error() {},
    child() {
      return this;
    },
  },
  now: () => new Date(),
});

describe('static files and headers', () => {
  it.each([
    ['/static/pico.min.css', /text\/css/],
    ['/static/console.css', /text\/css/],
    ['/static/console.js', /javascript/],
    ['/static/assistant.js', /javascript/],
    // The MCP Apps host: the extension's AppBridge, bundled (from the sources here, at first request).
    ['/static/view-host.js', /javascript/],
  ])('serves %s', async (path, type) => {
    const res = await request(app).get(path).expect(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.text.length).toBeGreaterThan(100);
  });

  it('serves a favicon, cached, that every page names (browsers ask /favicon.ico otherwise: a 404 each load)', async () => {
    const icon = await request(app).get('/static/favicon.svg').expect(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).toMatch(/max-age=[1-9]/);
    const svg = Buffer.isBuffer(icon.body) ? icon.body.toString('utf8') : icon.text;
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).not.toMatch(/<script|on\w+=/i);
    const login = await request(app).get('/login').expect(200);
    expect(login.text).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml"/>');
    // Asked for by what names no icon (a JSON page opened in a browser), with or without a session.
    const ico = await request(app).get('/favicon.ico').expect(301);
    expect(ico.headers.location).toBe('/static/favicon.svg');
    expect(ico.headers['cache-control']).toMatch(/max-age=[1-9]/);
  });

  it('sends a strict CSP and a referrer policy under which browsers still send Origin', async () => {
    const res = await request(app).get('/login').expect(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('answers /healthz without a session', async () => {
    expect((await request(app).get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  });
});
