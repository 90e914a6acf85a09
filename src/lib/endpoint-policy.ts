import { lookup as systemLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici';
import { AppError } from './app-error.js';

/** A DNS resolver in the shape of `dns.lookup` with `all: true` (tests bring their own). */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** The `lookup` hook of `net.connect`, which asks for one address or, with `all`, for every one. */
type ConnectLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

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

/** What a call through `EndpointPolicy.request` may set: never the dispatcher (the policy's own). */
export interface PolicyRequestOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** The connection error of an address the policy refuses; callers report its code. */
const refusedAddress = (address: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`The address ${address} is one this service does not call`), { code: 'EBLOCKEDADDRESS' });

export class EndpointPolicy {
  private readonly blocked: BlockList;
  /**
   * Connections to user-supplied endpoints: the policy is applied to the addresses the connection
   * is actually made to, so a DNS answer that changes after `check` (rebinding) cannot slip past.
   */
  private readonly agent: Agent;

  constructor(
    readonly allowPrivateNetworks: boolean,
    private readonly resolve: Resolver = systemLookup,
  ) {
    this.blocked = blockList(allowPrivateNetworks);
    const lookup: ConnectLookup = (hostname, options, callback) => {
      this.resolve(hostname, { all: true }, (error, addresses) => {
        if (error) return callback(error, '');
        const family = options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 || options.family === 'IPv4' ? 4 : undefined;
        const usable = addresses.filter((entry) => family === undefined || entry.family === family);
        const refused = usable.find((entry) => this.isBlocked(entry.address, entry.family));
        if (refused !== undefined) return callback(refusedAddress(refused.address), '');
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, usable);
        return callback(null, usable[0]!.address, usable[0]!.family);
      });
    };
    this.agent = new Agent({ connect: { lookup } });
  }

  private isBlocked(address: string, family: number): boolean {
    return this.blocked.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  private lookupAll(hostname: string): Promise<LookupAddress[]> {
    return new Promise((resolve) => this.resolve(hostname, { all: true }, (error, addresses) => resolve(error ? [] : addresses)));
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
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await this.lookupAll(host);
    // An unresolvable host is left to the request itself to fail: it reaches nothing.
    for (const { address, family } of addresses) {
      if (this.isBlocked(address, family)) {
        throw new AppError('BAD_REQUEST', `The base URL points at an address this service does not call (${address})`);
      }
    }
  }

  /**
   * `fetch` for calls to user-supplied endpoints (AI SDK providers, catalog requests): the URL is
   * checked first (an address literal never reaches the lookup), and every connection is checked
   * again on the address it connects to.
   */
  readonly fetch: typeof fetch = async (input, init) => {
    await this.check(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    // undici's fetch is the one Node's global fetch is built on; only its types differ from the DOM's.
    return undiciFetch(input, { ...init, dispatcher: this.agent });
  };

  /**
   * undici's `request` under the same checks, for a client of many small calls (GitLab's: 30 for
   * one publication): a WHATWG `fetch` spends several times its CPU per call on Request, Headers
   * and web streams. Redirects are not followed (a 3xx is the answer); a body left unread must be
   * dumped, or its connection is not reused.
   */
  readonly request = async (url: string, options: PolicyRequestOptions): Promise<Dispatcher.ResponseData> => {
    await this.check(url);
    return undiciRequest(url, { ...options, dispatcher: this.agent });
  };
}
