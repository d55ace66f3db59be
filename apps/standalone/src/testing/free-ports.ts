import { createServer } from 'node:net';

/** Ports the OS considers free right now (bound to 0, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const reserved = await reservePorts(count);
  await reserved.releaseAll();
  return reserved.ports;
}

/**
 * Ports held bound until each is released: for a topology whose addresses must be known before its
 * services start one by one. A port handed out and closed at once may be handed out again (by a
 * later call, or to another process) before its service binds it; held, it cannot.
 */
export async function reservePorts(count: number): Promise<{
  ports: number[];
  /** Frees these ports, right before the service that binds them starts. */
  release(ports: readonly number[]): Promise<void>;
  releaseAll(): Promise<void>;
}> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const held = new Map(servers.map((s) => [(s.address() as import('node:net').AddressInfo).port, s]));
  const release = async (ports: readonly number[]) => {
    await Promise.all(
      ports.map((port) => {
        const server = held.get(port);
        held.delete(port);
        return server ? new Promise((resolve) => server.close(resolve)) : undefined;
      }),
    );
  };
  return { ports: [...held.keys()], release, releaseAll: () => release([...held.keys()]) };
}
