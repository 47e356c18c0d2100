// containerd's configuration for a real node: all state under the cluster folder, CRI with
// the settings this nested environment needs, and every registry name the cases use pulled
// from the cluster's own registry (nothing leaves the machine).
import { SANDBOX_IMAGE } from './images.ts';

/** Registry names containerd sends to the local registry instead of the internet. */
export const MIRRORED_REGISTRIES: readonly string[] = [
  'docker.io',
  'registry-1.docker.io',
  'index.docker.io',
  'registry.k8s.io',
  'k8s.gcr.io',
  'gcr.io',
  'quay.io',
  'ghcr.io',
];

export interface NodeFolders {
  /** containerd's persistent root (images, snapshots). */
  readonly containerdRoot: string;
  /** containerd's state (sockets, shim bundles). */
  readonly containerdState: string;
  readonly containerdSocket: string;
  /** runc's state folder (its `--root`): the containers of this node and nothing else. */
  readonly runcRoot: string;
  /** Folder of `<registry>/hosts.toml` files. */
  readonly registryHosts: string;
  readonly cniConfDir: string;
  readonly cniBinDir: string;
}

export interface ContainerdConfigInput {
  readonly folders: NodeFolders;
  readonly runcBinary: string;
}

const quote = (s: string): string => JSON.stringify(s);

/** containerd 1.6 (config version 2) TOML. */
export function containerdConfigToml(input: ContainerdConfigInput): string {
  const f = input.folders;
  return [
    'version = 2',
    `root = ${quote(f.containerdRoot)}`,
    `state = ${quote(f.containerdState)}`,
    // Only CRI and what it needs: no AUFS/btrfs/zfs/devmapper probing, no extra services.
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", ' +
      '"io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", ' +
      '"io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]',
    '',
    '[grpc]',
    `  address = ${quote(f.containerdSocket)}`,
    '',
    '[ttrpc]',
    `  address = ${quote(`${f.containerdSocket}.ttrpc`)}`,
    '',
    '[debug]',
    '  address = ""',
    '',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.grpc.v1.cri"]',
    `  sandbox_image = ${quote(SANDBOX_IMAGE)}`,
    // runc cannot lower oom_score_adj below its parent's in a nested container.
    '  restrict_oom_score_adj = true',
    '  enable_selinux = false',
    '  disable_apparmor = true',
    '  disable_cgroup = false',
    '  max_container_log_line_size = 16384',
    // Pods' network namespaces under the state folder, not /var/run/netns: they go with it.
    '  netns_mounts_under_state_dir = true',
    '',
    '[plugins."io.containerd.grpc.v1.cri".containerd]',
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    '',
    '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
    '  runtime_type = "io.containerd.runc.v2"',
    '',
    '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
    `  BinaryName = ${quote(input.runcBinary)}`,
    `  Root = ${quote(f.runcRoot)}`,
    '  SystemdCgroup = false',
    '',
    '[plugins."io.containerd.grpc.v1.cri".cni]',
    `  bin_dir = ${quote(f.cniBinDir)}`,
    `  conf_dir = ${quote(f.cniConfDir)}`,
    '  max_conf_num = 1',
    '',
    '[plugins."io.containerd.grpc.v1.cri".registry]',
    `  config_path = ${quote(f.registryHosts)}`,
    '',
  ].join('\n');
}

/**
 * hosts.toml for one mirrored registry name: the local registry is the server itself, so a
 * name it lacks fails to pull instead of falling back to the internet.
 */
export function registryHostsToml(localRegistry: string): string {
  const url = `http://${localRegistry}`;
  return [
    `server = ${quote(url)}`,
    '',
    `[host.${quote(url)}]`,
    '  capabilities = ["pull", "resolve"]',
    '  skip_verify = true',
    '',
  ].join('\n');
}

export interface CniConfigInput {
  readonly bridge: string;
  /** The pods' subnet, e.g. 10.89.3.0/24; the bridge holds its first address. */
  readonly subnet: string;
  readonly gateway: string;
  /** host-local's allocation records. */
  readonly ipamDataDir: string;
  /** The Services' range: pods route it through the bridge (see service-route.ts). */
  readonly serviceCidr?: string;
}

/**
 * The pod network: one bridge of this node, no masquerading and no default route out of the
 * pod, so a pod reaches the bridge's other pods, the node's address and the service range
 * (where only the apiserver's ClusterIP leads somewhere), nothing beyond.
 */
export function cniConfigList(input: CniConfigInput): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: 'planwright-pods',
      plugins: [
        {
          type: 'bridge',
          bridge: input.bridge,
          isGateway: true,
          isDefaultGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: input.ipamDataDir,
            ranges: [[{ subnet: input.subnet, gateway: input.gateway }]],
            ...(input.serviceCidr ? { routes: [{ dst: input.serviceCidr }] } : {}),
          },
        },
        { type: 'loopback' },
      ],
    },
    null,
    2,
  );
}
