import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback reverse proxy that adds `Authorization: Bearer <token>` to every request. The MCP
 * conformance suite sends no auth header, so it talks to the gateway through this. Everything
 * else, Host and Origin included, passes unchanged so DNS-rebinding checks still see the truth.
 */
export interface AuthProxy {
  url: string;
  close(): Promise<void>;
}

export async function startAuthProxy(target: URL, token: string): Promise<AuthProxy> {
  const server: Server = createServer((req, res) => {
    const upstream = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    // A client that goes away (e.g. closes its SSE stream) must close the upstream leg too.
    res.on('close', () => upstream.destroy());
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
