// Local mode answers only the names it is reached by. A web page whose own name an attacker rebinds to 127.0.0.1
// (DNS rebinding) reaches the port with that name in `Host`, and gets a 421 instead of the platform.
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { dnsLabel } from '#platform/dns-label.js';

/** `platform`: the API, the console and the path form of sites; `site`: `<sub>.localhost`, a template site's origin. */
export type HostKind = 'platform' | 'site';

export interface LocalHostsOptions {
  /** The address the server listens on (HOST); a wildcard adds this machine's own addresses and name. */
  bindHost?: string;
  /** The public base URL a proxy in front of the server answers at (PUBLIC_BASE_URL), port included. */
  publicBaseUrl?: string;
}

const wildcards = new Set(['0.0.0.0', '::', '[::]']);
const hostHeader = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;
const bracketed = (address: string) => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);

export function localHosts(options: LocalHostsOptions = {}) {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const bind = options.bindHost?.toLowerCase();
  if (bind && wildcards.has(bind)) {
    names.add(hostname().toLowerCase());
    for (const address of Object.values(networkInterfaces()).flat()) if (address) names.add(bracketed(address.address.toLowerCase()));
  } else if (bind) names.add(bracketed(bind));
  const proxied = options.publicBaseUrl ? new URL(options.publicBaseUrl).host : undefined;

  return {
    /** What the request's `Host` names on this server, or undefined when it is not one of its names. */
    kindOf(request: IncomingMessage): HostKind | undefined {
      const header = (request.headers.host ?? '').toLowerCase();
      if (proxied && header === proxied) return 'platform';
      const parts = hostHeader.exec(header);
      if (!parts) return undefined;
      const name = parts[1]!;
      if (Number(parts[2] ?? 80) !== request.socket.localPort) return undefined;
      if (names.has(name)) return 'platform';
      return name.endsWith('.localhost') && dnsLabel.test(name.slice(0, -'.localhost'.length)) ? 'site' : undefined;
    },
  };
}

export type LocalHosts = ReturnType<typeof localHosts>;
