import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import {
  cniConfigList,
  containerdConfigToml,
  registryHostsToml,
} from '../../../src/localcluster/nodes/containerd-config.ts';
import { parseImageRef, pulledLocally } from '../../../src/localcluster/nodes/image-ref.ts';
import { LOCAL_IMAGES, ociImage } from '../../../src/localcluster/nodes/images.ts';
import { kubeletArgs, kubeletConfigYaml } from '../../../src/localcluster/nodes/kubelet-config.ts';
import { sendToSimulatedNodes } from '../../../src/localcluster/nodes/placement.ts';
import {
  routeTableName,
  serviceRouteRuleset,
} from '../../../src/localcluster/nodes/service-route.ts';
import { KUBERNETES_SERVICE_IP, SERVICE_CIDR } from '../../../src/localcluster/args.ts';

describe('image references as containerd resolves them', () => {
  it.each([
    ['busybox', 'docker.io', 'library/busybox', 'latest'],
    ['busybox:1.36', 'docker.io', 'library/busybox', '1.36'],
    ['docker.io/library/alpine:3', 'docker.io', 'library/alpine', '3'],
    ['bitnami/redis:7', 'docker.io', 'bitnami/redis', '7'],
    ['registry.k8s.io/pause:3.10', 'registry.k8s.io', 'pause', '3.10'],
    ['localhost:5000/a/b', 'localhost:5000', 'a/b', 'latest'],
    ['quay.io/x/y@sha256:abc', 'quay.io', 'x/y', 'sha256:abc'],
  ])('%s → %s/%s:%s', (image, host, repository, reference) => {
    expect(parseImageRef(image)).toEqual({ host, repository, reference });
  });

  it('sends only the mirrored registry names to the local registry', () => {
    expect(pulledLocally(parseImageRef('nginx:1.7.9'))).toBe(true);
    expect(pulledLocally(parseImageRef('registry.example/app:1'))).toBe(false);
  });
});

describe('the local images', () => {
  it('serve every name and tag the cases, the examples and Pipe use', () => {
    const names = new Set(LOCAL_IMAGES.flatMap((i) => i.tags.map((t) => `${i.repository}:${t}`)));
    for (const ref of [
      'busybox',
      'busybox:1.36',
      'alpine',
      'nginx',
      'nginx:1.7.9',
      'nginx:1',
      'registry.k8s.io/pause:3.10',
    ]) {
      const { repository, reference } = parseImageRef(ref);
      expect(names).toContain(`${repository}:${reference}`);
    }
  });

  it('have a config naming the layer by its digest and the image its entrypoint', () => {
    const layer = Buffer.from('layer bytes');
    const nginx = LOCAL_IMAGES.find((i) => i.repository === 'library/nginx');
    if (!nginx) throw new Error('no nginx image');
    const config = JSON.parse(ociImage(nginx, layer).config.toString()) as {
      config: { Entrypoint: string[]; ExposedPorts: Record<string, unknown> };
      rootfs: { diff_ids: string[] };
    };
    const digest = createHash('sha256').update(layer).digest('hex');
    expect(config.rootfs.diff_ids).toEqual([`sha256:${digest}`]);
    expect(config.config.Entrypoint.slice(0, 1)).toEqual(['httpd']);
    expect(config.config.Entrypoint).toContain('80');
    expect(Object.keys(config.config.ExposedPorts)).toEqual(['80/tcp']);
  });
});

describe('containerd and CNI configuration of a real node', () => {
  const folders = {
    containerdRoot: '/c/node/containerd',
    containerdState: '/c/node/containerd-state',
    containerdSocket: '/c/node/containerd.sock',
    runcRoot: '/c/node/runc',
    registryHosts: '/c/node/registry-hosts',
    cniConfDir: '/c/node/cni',
    cniBinDir: '/cache/usr/lib/cni',
  };

  it('keeps every piece of state in the node folder and sets what the nested kernel needs', () => {
    const toml = containerdConfigToml({ folders, runcBinary: '/cache/usr/sbin/runc' });
    expect(toml).toContain('root = "/c/node/containerd"');
    expect(toml).toContain('state = "/c/node/containerd-state"');
    expect(toml).toContain('address = "/c/node/containerd.sock"');
    expect(toml).toContain('Root = "/c/node/runc"');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('netns_mounts_under_state_dir = true');
    expect(toml).toContain('config_path = "/c/node/registry-hosts"');
  });

  it('makes the local registry the server of a mirrored name (no fallback to the internet)', () => {
    const hosts = registryHostsToml('127.0.0.1:5000');
    expect(hosts).toMatch(/^server = "http:\/\/127\.0\.0\.1:5000"$/m);
    expect(hosts).toContain('[host."http://127.0.0.1:5000"]');
  });

  it('gives pods a bridge without masquerading or a default route', () => {
    const conf = JSON.parse(
      cniConfigList({
        bridge: 'pw-1',
        subnet: '10.89.1.0/24',
        gateway: '10.89.1.1',
        ipamDataDir: '/c/ipam',
      }),
    ) as { plugins: Array<Record<string, unknown>> };
    expect(conf.plugins[0]).toMatchObject({
      type: 'bridge',
      bridge: 'pw-1',
      ipMasq: false,
      isDefaultGateway: false,
      ipam: { type: 'host-local', dataDir: '/c/ipam' },
    });
    expect(JSON.stringify(conf)).not.toContain('0.0.0.0/0');
  });

  it('routes only the service range through the bridge, besides the pod subnet', () => {
    const conf = JSON.parse(
      cniConfigList({
        bridge: 'pw-1',
        subnet: '10.89.1.0/24',
        gateway: '10.89.1.1',
        ipamDataDir: '/c/ipam',
        serviceCidr: SERVICE_CIDR,
      }),
    ) as { plugins: Array<{ ipam?: { routes?: unknown } }> };
    expect(conf.plugins[0]?.ipam?.routes).toEqual([{ dst: '10.0.0.0/24' }]);
  });
});

describe("a real node's route to the apiserver", () => {
  it('rewrites only what enters from its own bridge for the kubernetes ClusterIP, in a table of its own', () => {
    const rules = serviceRouteRuleset({
      bridge: 'pw-ab12',
      serviceIp: KUBERNETES_SERVICE_IP,
      servicePort: 443,
      apiServerPort: 40123,
    });
    expect(rules).toContain('table ip planwright-pw-ab12 {');
    expect(rules).toContain('type nat hook prerouting priority dstnat; policy accept;');
    expect(rules).toContain(
      'iifname "pw-ab12" ip daddr 10.0.0.1 tcp dport 443 dnat to 127.0.0.1:40123',
    );
    // One rule: no other address, port or interface is touched.
    expect(rules.match(/dnat/g)).toHaveLength(1);
    expect(routeTableName('pw-ab12')).toBe('planwright-pw-ab12');
  });
});

describe('the kubelet of a real node', () => {
  it('runs with cgroupfs, no per-QoS cgroups, no fixed ports and the client CA', () => {
    const config = parseYaml(
      kubeletConfigYaml({
        nodeIp: '10.89.1.1',
        port: 40123,
        clientCaFile: '/c/pki/client-ca.crt',
        containerdSocket: '/c/node/containerd.sock',
        staticPodDir: '/c/node/static-pods',
        podLogsDir: '/c/node/pod-logs',
      }),
    ) as Record<string, unknown>;
    expect(config).toMatchObject({
      kind: 'KubeletConfiguration',
      address: '10.89.1.1',
      port: 40123,
      readOnlyPort: 0,
      healthzPort: 0,
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      containerRuntimeEndpoint: 'unix:///c/node/containerd.sock',
      // Its own, not the machine-wide /var/log/pods another node's kubelet collects.
      podLogsDir: '/c/node/pod-logs',
      authentication: {
        anonymous: { enabled: false },
        x509: { clientCAFile: '/c/pki/client-ca.crt' },
      },
    });
  });

  it('names the node, its IP and its labels on the command line', () => {
    const args = kubeletArgs({
      configFile: '/c/k.yaml',
      kubeconfig: '/c/k.kubeconfig',
      rootDir: '/c/kubelet',
      certDir: '/c/pki',
      nodeName: 'node-1',
      nodeIp: '10.89.1.1',
      labels: { 'planwright.dev/node-kind': 'real' },
    });
    expect(args).toContain('--hostname-override=node-1');
    expect(args).toContain('--node-ip=10.89.1.1');
    expect(args).toContain('--node-labels=planwright.dev/node-kind=real');
  });
});

describe('placement of mixed nodes', () => {
  it('adds the toleration and the kwok node selector to a pod without either', () => {
    expect(sendToSimulatedNodes({})).toEqual([
      {
        op: 'add',
        path: '/spec/tolerations',
        value: [
          {
            key: 'planwright.dev/simulated-node',
            value: 'true',
            effect: 'NoSchedule',
            operator: 'Equal',
          },
        ],
      },
      { op: 'add', path: '/spec/nodeSelector', value: { 'planwright.dev/node-kind': 'kwok' } },
    ]);
  });

  it('appends to tolerations and node selectors a pod already has', () => {
    const patch = sendToSimulatedNodes({ tolerations: [{}], nodeSelector: { zone: 'a' } });
    expect(patch.map((p) => (p as { path: string }).path)).toEqual([
      '/spec/tolerations/-',
      '/spec/nodeSelector/planwright.dev~1node-kind',
    ]);
  });
});
