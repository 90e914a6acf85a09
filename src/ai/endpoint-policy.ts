import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../lib/app-error.js';

/**
 * Which addresses a user-supplied base URL (a custom gateway, a self-hosted model) may point at.
 * Self-hosted endpoints on private networks are a real use case, so they are allowed unless the
 * operator says otherwise; link-local addresses (cloud metadata services) never are.
 */
function blockList(allowPrivateNetworks: boolean): BlockList {
  const list = new BlockList();
  list.addSubnet('169.254.0.0', 16, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4');
  list.addSubnet('224.0.0.0', 4, 'ipv4');
  list.addSubnet('fe80::', 10, 'ipv6');
  list.addSubnet('ff00::', 8, 'ipv6');
  if (!allowPrivateNetworks) {
    list.addSubnet('127.0.0.0', 8, 'ipv4');
    list.addSubnet('10.0.0.0', 8, 'ipv4');
    list.addSubnet('172.16.0.0', 12, 'ipv4');
    list.addSubnet('192.168.0.0', 16, 'ipv4');
    list.addSubnet('100.64.0.0', 10, 'ipv4');
    list.addAddress('::1', 'ipv6');
    list.addSubnet('fc00::', 7, 'ipv6');
  }
  return list;
}

export class EndpointPolicy {
  private readonly blocked: BlockList;

  constructor(readonly allowPrivateNetworks: boolean) {
    this.blocked = blockList(allowPrivateNetworks);
  }

  /** Refuses (400) a URL that is not http(s) or whose host resolves to a refused address. */
  async check(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new AppError('BAD_REQUEST', 'The base URL is not a valid URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new AppError('BAD_REQUEST', 'The base URL must be http or https');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true }).catch(() => []);
    // An unresolvable host is left to the request itself to fail: it reaches nothing.
    for (const { address, family } of addresses) {
      if (this.blocked.check(address, family === 6 ? 'ipv6' : 'ipv4')) {
        throw new AppError('BAD_REQUEST', `The base URL points at an address this service does not call (${address})`);
      }
    }
  }

  /** `fetch` that checks every URL first, for calls to user-supplied endpoints. */
  readonly fetch: typeof fetch = async (input, init) => {
    await this.check(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetch(input, init);
  };
}
