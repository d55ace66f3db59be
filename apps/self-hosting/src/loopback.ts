import type { ComposeService } from './compose-file';

// A compose service's environment moved from the compose network onto this machine's loopback:
// each service's hostname becomes 127.0.0.1 with a port of its own, every container listens on
// loopback instead of all interfaces, and each volume is a directory. What stays is everything the
// services are told: the same variables, the same URLs' paths, users and passwords.

export interface LoopbackTopology {
  /** `<compose service>:<container port>` -> `127.0.0.1:<port on this machine>`. */
  addresses: Map<string, string>;
  /** `<compose service>:<volume target>` -> a directory on this machine. */
  volumes: Map<string, string>;
}

const URL_AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?)([^:/@]+):(\d+)/i;

/**
 * One value as the service sees it on loopback: an address of the compose network (or of the
 * container itself, 127.0.0.1 / localhost) becomes the service's loopback address, a bare port of
 * its own its loopback port, 0.0.0.0 loopback, and a path under one of its volumes that directory.
 */
export function loopbackValue(service: string, value: string, topology: LoopbackTopology): string {
  const own = (port: string) => topology.addresses.get(`${service}:${port}`);
  const url = URL_AUTHORITY.exec(value);
  if (url) {
    const [whole, scheme, host, port] = url as unknown as [string, string, string, string];
    const mapped =
      host === '127.0.0.1' || host === 'localhost' ? own(port) : topology.addresses.get(`${host}:${port}`);
    return mapped ? `${scheme}${mapped}${value.slice(whole.length)}` : value;
  }
  if (/^\d+$/.test(value)) return own(value)?.split(':')[1] ?? value;
  if (value === '0.0.0.0') return '127.0.0.1';
  for (const [key, dir] of topology.volumes) {
    const [owner, target] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (owner === service && (value === target || value.startsWith(`${target}/`)))
      return dir + value.slice(target.length);
  }
  return value;
}

export function loopbackEnv(
  service: ComposeService,
  env: Record<string, string>,
  topology: LoopbackTopology,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, loopbackValue(service.name, v, topology)]),
  );
}

/** A command (or health check) of the service with its own addresses on loopback. */
export function loopbackArgs(service: ComposeService, args: string[], topology: LoopbackTopology): string[] {
  return args.map((a) => loopbackValue(service.name, a, topology));
}
