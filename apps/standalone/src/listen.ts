import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withServerTimeouts } from '@svc/config';

export class PortInUseError extends Error {
  constructor(
    readonly what: string,
    readonly host: string,
    readonly port: number,
  ) {
    super(
      `Port ${port} on ${host} (${what}) is already in use. Is another stack or service running? ` +
        'Stop it, or choose other ports with the SVC_* port variables (see README, Configuration).',
    );
    this.name = 'PortInUseError';
  }
}

export async function listen(
  what: string,
  handler: RequestListener,
  host: string,
  port: number,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = withServerTimeouts(createServer(handler));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(what, host, port) : err),
    );
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
