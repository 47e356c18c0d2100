/**
 * Which servers a target kubeconfig (a tenant's Secret) may make the manager connect to. The
 * manager sends requests whose path and body the tenant's package controls, from inside the
 * cluster network, and shows parts of the answers in the Instance's status: pointed at an
 * address only the manager can reach (itself, a node's or cloud's metadata endpoint, a pod or
 * a Service) that would be a request forgery with the manager's network position. So addresses
 * of these ranges are refused unless an administrator allows them (`planwright start
 * --allow-target-server <address or CIDR>`):
 *
 * * loopback and "this host" (127.0.0.0/8, 0.0.0.0/8, ::1, ::): the manager itself, its sidecars;
 * * link-local (169.254.0.0/16, fe80::/10): cloud metadata endpoints, node-local services;
 * * private-use, shared and unique-local ranges (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16,
 *   100.64.0.0/10, fc00::/7): where the pod and Service networks of a cluster are (kubeadm,
 *   k3s, EKS, GKE, AKS and the common CNIs all allocate them there; a cluster does not publish
 *   its own ranges through its API in a way the manager could read everywhere).
 *
 * An address literal is checked when the kubeconfig is read; a host name is checked on every
 * connection, after it is resolved (so a name that resolves to a refused address, or changes to
 * one later, is refused too). node:net's BlockList does the range matching.
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** A refused range and what lives there, for messages. */
interface RefusedRange {
  readonly network: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
  readonly what: string;
}

const REFUSED: readonly RefusedRange[] = [
  { network: '127.0.0.0', prefix: 8, family: 'ipv4', what: 'loopback' },
  { network: '0.0.0.0', prefix: 8, family: 'ipv4', what: '"this host"' },
  { network: '::1', prefix: 128, family: 'ipv6', what: 'loopback' },
  { network: '::', prefix: 128, family: 'ipv6', what: 'unspecified' },
  { network: '169.254.0.0', prefix: 16, family: 'ipv4', what: 'link-local (metadata endpoints)' },
  { network: 'fe80::', prefix: 10, family: 'ipv6', what: 'link-local' },
  {
    network: '10.0.0.0',
    prefix: 8,
    family: 'ipv4',
    what: 'private-use (pod and Service networks)',
  },
  {
    network: '172.16.0.0',
    prefix: 12,
    family: 'ipv4',
    what: 'private-use (pod and Service networks)',
  },
  {
    network: '192.168.0.0',
    prefix: 16,
    family: 'ipv4',
    what: 'private-use (pod and Service networks)',
  },
  {
    network: '100.64.0.0',
    prefix: 10,
    family: 'ipv4',
    what: 'shared address space (pod networks)',
  },
  { network: 'fc00::', prefix: 7, family: 'ipv6', what: 'unique-local (pod and Service networks)' },
];

/** An `--allow-target-server` value that is neither an address nor a CIDR range. */
export class TargetServerFlagError extends Error {
  override readonly name = 'TargetServerFlagError';
}

/** A connection to a refused address (the message names it, the range and the flag). */
export class TargetServerRefusedError extends Error {
  override readonly name = 'TargetServerRefusedError';
  readonly code = 'ETARGETREFUSED';
}

function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/** `::ffff:10.0.0.1` is 10.0.0.1: an IPv4-mapped address is judged as the IPv4 one. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

/** Adds `value` (an address or `address/prefix`) to `list`; throws TargetServerFlagError. */
function addAllowed(list: BlockList, value: string): void {
  const [address = '', prefix, extra] = value.split('/');
  const family = familyOf(address);
  const bits = prefix === undefined ? undefined : Number(prefix);
  const max = family === 'ipv4' ? 32 : 128;
  if (
    family === undefined ||
    extra !== undefined ||
    (bits !== undefined && (!/^\d+$/.test(prefix ?? '') || bits > max))
  ) {
    throw new TargetServerFlagError(
      `--allow-target-server ${JSON.stringify(value)}: needs an IP address or a CIDR range, e.g. --allow-target-server 10.20.0.0/16 or --allow-target-server 10.20.0.5`,
    );
  }
  if (bits === undefined) list.addAddress(unmapped(address), familyOf(unmapped(address)));
  else list.addSubnet(address, bits, family);
}

export class TargetServerPolicy {
  private readonly allowed = new BlockList();
  private readonly refusedBy: ReadonlyArray<{
    readonly list: BlockList;
    readonly range: RefusedRange;
  }>;

  /** @param allow addresses and CIDR ranges an administrator allows although refused by default */
  constructor(readonly allow: readonly string[] = []) {
    for (const value of allow) addAllowed(this.allowed, value);
    this.refusedBy = REFUSED.map((range) => {
      const list = new BlockList();
      list.addSubnet(range.network, range.prefix, range.family);
      return { list, range };
    });
  }

  /** Why connecting to `address` (an IP address) is refused, or undefined when it is not. */
  refusal(address: string): string | undefined {
    const ip = unmapped(address);
    const family = familyOf(ip);
    if (family === undefined) return undefined;
    if (this.allowed.check(ip, family)) return undefined;
    const hit = this.refusedBy.find((r) => r.list.check(ip, family));
    if (!hit) return undefined;
    const { network, prefix, what } = hit.range;
    return `address ${ip} is in ${network}/${prefix} (${what}), which target kubeconfigs may not name: the manager would send a tenant's requests to an address only it can reach. An administrator allows it with \`planwright start --allow-target-server ${ip}\` (or the range)`;
  }

  /** Why the server URL's host, when it is an address, is refused (names are judged later). */
  refusalOfUrl(server: URL): string | undefined {
    const host = server.hostname.replace(/^\[(.*)\]$/, '$1');
    return familyOf(host) === undefined ? undefined : this.refusal(host);
  }

  /**
   * `dns.lookup` that leaves out refused addresses (a connection to a name is judged by where
   * it resolves, every time) and fails when none is left.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const usable = addresses.filter((a) => this.refusal(a.address) === undefined);
      const first = usable[0];
      if (!first) {
        const why = this.refusal(addresses[0]?.address ?? '') ?? 'no address';
        callback(new TargetServerRefusedError(`host ${hostname}: ${why}`), '', 0);
        return;
      }
      if (options.all) callback(null, usable, 0);
      else callback(null, first.address, first.family);
    });
  };
}
