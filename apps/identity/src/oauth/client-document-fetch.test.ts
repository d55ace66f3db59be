import { createServer, type Server, type Socket } from 'node:net';
import { generateCACertificate, getLocal, type Mockttp } from 'mockttp';
import { authorizationRequest, type OAuthHarness, startOAuthHarness } from '../testing/oauth-client';
import { clientDocumentFetch, FetchRefusedError, guardedLookup, type Resolve } from './client-document-fetch';
import { isPublicAddress } from './public-address';

// Client ID Metadata Documents (and anything else a client names) are never fetched from this host,
// its network or any other non-public address, in any spelling: a client_id URL must not turn the
// authorization server into a port scanner of its own network.

/** A TCP listener that counts who connects and what they send first. */
async function listener(host: string, port = 0): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((socket: Socket) => {
    const at = seen.push('(connected, nothing sent)') - 1;
    socket.once('data', (chunk) => {
      seen[at] = chunk.toString('utf8').slice(0, 20);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : port, seen };
}

/** Connects and sends a marker line, then waits until the listener has read it. */
async function mark(l: { seen: string[] }, host: string, port: number): Promise<void> {
  const { connect } = await import('node:net');
  const socket = connect(port, host);
  socket.on('error', () => {});
  socket.write('marker\n');
  for (let i = 0; !l.seen.includes('marker\n'); i++) {
    if (i > 12_000) throw new Error('the marker never arrived');
    await new Promise((r) => setTimeout(r, 10));
  }
  socket.destroy();
}

describe('client_id URLs naming this host, in every spelling', () => {
  let h: OAuthHarness;
  let v4: Awaited<ReturnType<typeof listener>>;
  let v6: Awaited<ReturnType<typeof listener>> | undefined;
  beforeAll(async () => {
    // Each spelling as from its own client address (a proxy on loopback names it): the per-address
    // budget of document fetches is not what refuses them.
    h = await startOAuthHarness({}, { trustedProxies: ['loopback'] });
    v4 = await listener('127.0.0.1');
    // The same port on ::1, where the machine has IPv6 loopback.
    v6 = await listener('::1', v4.port).catch(() => undefined);
  });
  afterAll(async () => {
    await new Promise((r) => v4.server.close(r));
    if (v6) await new Promise((r) => v6!.server.close(r));
    await h.close();
  });

  const SPELLINGS = [
    '127.0.0.1',
    'localhost',
    'LOCALHOST',
    'localhost.',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '127.1',
    '127.0.1',
    '0x7f000001',
    '0x7f.0.0.1',
    '2130706433',
    '017700000001',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '0.0.0.0',
    '0',
    '[::]',
  ];

  it('are refused with an error page, and no connection ever reaches a listener on loopback', async () => {
    for (const [i, host] of SPELLINGS.entries()) {
      const clientId = `https://${host}:${v4.port}/client.json`;
      const { url } = authorizationRequest(h.issuer, clientId);
      const res = await fetch(url, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      });
      const body = await res.text();
      expect([host, res.status, res.headers.get('location')]).toEqual([host, 400, null]);
      expect(body).toContain('invalid_client');
    }
    // Connections are accepted in the order they were made: once our own marker has arrived, any
    // attempt made by the authorization server would have been seen before it.
    await mark(v4, '127.0.0.1', v4.port);
    expect(v4.seen).toEqual(['marker\n']);
    if (v6) {
      await mark(v6, '::1', v4.port);
      expect(v6.seen).toEqual(['marker\n']);
    }
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['93.184.215.14', true],
    ['2606:4700::6810:84e5', true],
    ['::ffff:93.184.215.14', true],
    ['127.0.0.1', false],
    ['0.0.0.0', false],
    ['10.1.2.3', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['198.18.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:a9fe:a9fe', false],
    ['64:ff9b::7f00:1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['2002:7f00:1::1', false],
    ['not an address', false],
  ])('%s: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('guardedLookup', () => {
  const resolveTo =
    (...addresses: string[]): Resolve =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const lookUp = (resolve: Resolve, all: boolean) =>
    new Promise<unknown>((done, fail) =>
      guardedLookup(resolve, isPublicAddress)('docs.example.test', { all }, (err, address) =>
        err ? fail(err) : done(address),
      ),
    );

  it('refuses a name when any address it resolves to is not public (one answer mixing both)', async () => {
    await expect(lookUp(resolveTo('93.184.215.14', '127.0.0.1'), true)).rejects.toBeInstanceOf(
      FetchRefusedError,
    );
    await expect(lookUp(resolveTo('10.0.0.1'), false)).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(lookUp(resolveTo(), false)).rejects.toBeInstanceOf(FetchRefusedError);
  });

  it('hands the socket exactly the addresses it checked', async () => {
    expect(await lookUp(resolveTo('93.184.215.14', '2606:4700::6810:84e5'), true)).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::6810:84e5', family: 6 },
    ]);
    expect(await lookUp(resolveTo('93.184.215.14'), false)).toBe('93.184.215.14');
  });
});

describe('clientDocumentFetch', () => {
  let documents: Mockttp;
  let ca: { key: string; cert: string };
  beforeAll(async () => {
    ca = await generateCACertificate();
    documents = getLocal({ https: { key: ca.key, cert: ca.cert } });
    await documents.start();
  });
  afterAll(async () => {
    await documents.stop();
  });

  it('connects to the address it resolved once, and verifies TLS against the name (no second lookup)', async () => {
    const endpoint = await documents.forGet('/client.json').thenJson(200, { ok: true });
    // A name no DNS answers: the only way to reach the server is the address our lookup checked.
    const resolved: string[] = [];
    const fetchDocument = clientDocumentFetch({
      trustedCa: ca.cert,
      allowLoopback: true,
      resolve: async (name) => {
        resolved.push(name);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const res = (await fetchDocument(`https://client-docs.example.test:${documents.port}/client.json`, {
      method: 'GET',
    } as never)) as unknown as Response;
    expect(res.status).toBe(200);
    expect(resolved).toEqual(['client-docs.example.test']);
    const [seen] = await endpoint.getSeenRequests();
    expect(seen?.headers.host).toBe(`client-docs.example.test:${documents.port}`);
  });

  it('refuses http, and loopback without the explicit test opt-in even with a trusted CA', async () => {
    const endpoint = await documents.forGet('/refused.json').thenJson(200, { ok: true });
    const strict = clientDocumentFetch({ trustedCa: ca.cert });
    await expect(
      strict(`https://127.0.0.1:${documents.port}/refused.json`, {} as never),
    ).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(strict(`https://localhost:${documents.port}/refused.json`, {} as never)).rejects.toThrow();
    await expect(
      clientDocumentFetch({ allowLoopback: true })(
        `http://127.0.0.1:${documents.port}/refused.json`,
        {} as never,
      ),
    ).rejects.toBeInstanceOf(FetchRefusedError);
    expect(await endpoint.getSeenRequests()).toEqual([]);
  });
});
