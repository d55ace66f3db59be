import { type LoopbackTopology, loopbackValue } from './loopback';

const topology: LoopbackTopology = {
  addresses: new Map([
    ['identity:8081', '127.0.0.1:41001'],
    ['postgres:5432', '127.0.0.1:41002'],
    ['http-gateway:8092', '127.0.0.1:41003'],
  ]),
  volumes: new Map([['identity:/data', '/tmp/x/identity-data']]),
};

describe('loopbackValue', () => {
  it('moves compose addresses to loopback, keeping scheme, credentials and path', () => {
    expect(loopbackValue('core', 'http://identity:8081', topology)).toBe('http://127.0.0.1:41001');
    expect(loopbackValue('recall', 'postgres://svc:pw@postgres:5432/recall', topology)).toBe(
      'postgres://svc:pw@127.0.0.1:41002/recall',
    );
    // Unknown addresses (outside the stack) stay as they are.
    expect(loopbackValue('core', 'https://api.example.com:443/v1', topology)).toBe(
      'https://api.example.com:443/v1',
    );
  });

  it("maps a container's own loopback address and ports, and listens on loopback", () => {
    expect(loopbackValue('identity', 'http://127.0.0.1:8081/healthz', topology)).toBe(
      'http://127.0.0.1:41001/healthz',
    );
    expect(loopbackValue('http-gateway', '8092', topology)).toBe('41003');
    expect(loopbackValue('identity', '8092', topology)).toBe('8092');
    expect(loopbackValue('identity', '0.0.0.0', topology)).toBe('127.0.0.1');
  });

  it("puts a service's volume paths into its directory, and only its own", () => {
    expect(loopbackValue('identity', '/data', topology)).toBe('/tmp/x/identity-data');
    expect(loopbackValue('identity', '/data/audit-checkpoints', topology)).toBe(
      '/tmp/x/identity-data/audit-checkpoints',
    );
    expect(loopbackValue('recall', '/data', topology)).toBe('/data');
    expect(loopbackValue('identity', '/database', topology)).toBe('/database');
  });
});
