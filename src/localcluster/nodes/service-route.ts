// How pods of a real node reach the API server at the `kubernetes` Service's ClusterIP (the
// address the kubelet gives every pod as KUBERNETES_SERVICE_HOST, and the in-cluster
// configuration dials): one nftables table of this node, matching only packets that enter
// from its own pod bridge, rewrites <ClusterIP>:443 to the apiserver's loopback port, and the
// bridge alone is allowed to route to loopback (route_localnet). Pods learn a route to the
// service range through the bridge (the CNI configuration).
//
// Why not kube-proxy: its iptables and nftables modes own machine-wide chains (KUBE-SERVICES)
// or one table (`kube-proxy`), so two clusters on one machine would overwrite each other's
// rules, and it would need the apiserver reachable at a non-loopback address. This table
// carries the bridge's name and is removed with the node.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { NodeSetupError } from './errors.ts';

/** The nft executable of the unpacked Debian packages and the folder of its libraries. */
export interface NftTool {
  readonly binary: string;
  readonly libDir: string;
}

export interface ServiceRouteInput {
  readonly nft: NftTool;
  /** The node's pod bridge: only packets entering from it are rewritten. */
  readonly bridge: string;
  /** The `kubernetes` Service's ClusterIP. */
  readonly serviceIp: string;
  readonly servicePort: number;
  /** The apiserver's loopback port. */
  readonly apiServerPort: number;
}

/** The table's name: one per bridge, so parallel clusters never touch each other's. */
export const routeTableName = (bridge: string): string => `planwright-${bridge}`;

/** The nftables ruleset of a node's route to the apiserver. */
export function serviceRouteRuleset(input: Omit<ServiceRouteInput, 'nft'>): string {
  return [
    `table ip ${routeTableName(input.bridge)} {`,
    '  chain prerouting {',
    '    type nat hook prerouting priority dstnat; policy accept;',
    `    iifname "${input.bridge}" ip daddr ${input.serviceIp} tcp dport ${input.servicePort} dnat to 127.0.0.1:${input.apiServerPort}`,
    '  }',
    '}',
    '',
  ].join('\n');
}

function nft(tool: NftTool, args: readonly string[], stdin?: string): { ok: boolean; out: string } {
  const res = spawnSync(tool.binary, args, {
    encoding: 'utf8',
    input: stdin,
    env: { ...process.env, LD_LIBRARY_PATH: tool.libDir },
  });
  return {
    ok: res.status === 0,
    out: `${res.stdout ?? ''}${res.stderr ?? ''}${res.error?.message ?? ''}`,
  };
}

/** Installs the route; throws NodeSetupError naming what the kernel refused. */
export function installServiceRoute(input: ServiceRouteInput): void {
  const applied = nft(input.nft, ['-f', '-'], serviceRouteRuleset(input));
  if (!applied.ok) {
    throw new NodeSetupError(
      `nft refused the route from ${input.bridge} to the apiserver (${input.serviceIp}:${input.servicePort})`,
      applied.out,
    );
  }
  try {
    writeFileSync(`/proc/sys/net/ipv4/conf/${input.bridge}/route_localnet`, '1');
  } catch (err) {
    removeServiceRoute(input.nft, input.bridge);
    throw new NodeSetupError(
      `cannot let ${input.bridge} route to loopback (net.ipv4.conf.${input.bridge}.route_localnet): ${(err as Error).message}`,
    );
  }
}

/** Whether the node's table is still in the kernel. */
export function serviceRouteExists(tool: NftTool, bridge: string): boolean {
  return nft(tool, ['list', 'table', 'ip', routeTableName(bridge)]).ok;
}

/** Removes the node's table; one already gone is fine. */
export function removeServiceRoute(tool: NftTool, bridge: string): void {
  if (serviceRouteExists(tool, bridge))
    nft(tool, ['delete', 'table', 'ip', routeTableName(bridge)]);
}
