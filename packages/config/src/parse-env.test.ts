import { z } from 'zod';
import { ConfigError, flag, optionalUrl, parseEnv, port, portOf } from './parse-env';

const schema = z.object({ SVC_PORT: port(8092), SVC_X_URL: optionalUrl, SVC_FLAG: flag });

describe('parseEnv', () => {
  it('applies defaults and coerces', () => {
    expect(parseEnv('t', schema, {})).toEqual({ SVC_PORT: 8092, SVC_X_URL: undefined, SVC_FLAG: false });
    expect(parseEnv('t', schema, { SVC_PORT: '9000', SVC_X_URL: ' ', SVC_FLAG: '1' })).toEqual({
      SVC_PORT: 9000,
      SVC_X_URL: undefined,
      SVC_FLAG: true,
    });
  });

  it('names every bad variable in one clear error', () => {
    let caught: unknown;
    try {
      parseEnv('gateway', schema, { SVC_PORT: 'abc', SVC_X_URL: 'ftp://x' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toContain('gateway: invalid configuration');
    expect(message).toContain('SVC_PORT');
    expect(message).toContain('SVC_X_URL');
  });

  it('reads the port of a URL', () => {
    expect(portOf('http://localhost:8081', 1)).toBe(8081);
    expect(portOf('http://localhost', 1)).toBe(80);
    expect(portOf(undefined, 7)).toBe(7);
  });
});
