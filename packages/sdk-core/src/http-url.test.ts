import { parseHttpUrl } from './http-url';

// Where the platform's URL is the WHATWG one (Node, browsers) the parts read from its href are
// what its getters give: the SDKs behave there exactly as with the getters.
it.each([
  'http://127.0.0.1:8080/v1/orders/42?x=1#top',
  'HTTPS://User:Pa%40ss@API.Example.com:443/a/b/',
  'http://k:p@ss@example.com:80',
  'https://example.com:8443?q',
  'http://[::1]:3000/x#y',
  'http://example.com/a%20b/../c',
])('reads %s as the WHATWG URL does', (input) => {
  const url = new URL(input);
  expect(parseHttpUrl(url.href)).toEqual({
    origin: url.origin,
    host: url.host,
    pathname: url.pathname,
    userinfo: url.username || url.password ? `${url.username}:${url.password}` : '',
  });
});

it('reads an absolute URL as written, and nothing else', () => {
  expect(parseHttpUrl('HTTP://u:p@Api.Example:80/Cart/7?t=1')).toEqual({
    origin: 'http://api.example',
    host: 'api.example',
    pathname: '/Cart/7',
    userinfo: 'u:p',
  });
  for (const other of [
    '/v1/cart',
    'api.example/cart',
    'ftp://api.example/',
    'data:text/plain,x',
    'http:///x',
  ])
    expect(parseHttpUrl(other)).toBeUndefined();
});
