import { describe, expect, it } from '@jest/globals';
import {
  apiServerArgs,
  CONTROLLERS,
  controllerManagerArgs,
  etcdArgs,
  kwokArgs,
  schedulerArgs,
} from '../../../src/localcluster/args.ts';

const pki = {
  certDir: '/w/pki',
  files: {
    servingCa: '/w/pki/serving-ca.crt',
    servingCert: '/w/pki/apiserver.crt',
    servingKey: '/w/pki/apiserver.key',
    clientCa: '/w/pki/client-ca.crt',
    serviceAccountPublicKey: '/w/pki/sa.pub',
    serviceAccountPrivateKey: '/w/pki/sa.key',
    kubeletClientCert: '/w/pki/kubelet-client.crt',
    kubeletClientKey: '/w/pki/kubelet-client.key',
  },
};

/** `--name=value` flags as a map (the last occurrence wins, as with Go's pflag). */
function flags(args: readonly string[]): Map<string, string> {
  return new Map(
    args.map((a) => {
      const [name, ...value] = a.replace(/^--/, '').split('=');
      return [name ?? '', value.join('=')];
    }),
  );
}

/** The [first, last] addresses of an IPv4 CIDR, as numbers. */
function cidrRange(cidr: string): [number, number] {
  const [ip, bits] = cidr.split('/');
  const n = (ip ?? '').split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return [n, n + size - 1];
}

describe('control-plane command lines', () => {
  it('etcd listens on the given loopback ports only, without fsync', () => {
    const f = flags(etcdArgs({ dataDir: '/w/etcd', clientPort: 2001, peerPort: 2002 }));
    expect(f.get('listen-client-urls')).toBe('http://127.0.0.1:2001');
    expect(f.get('listen-peer-urls')).toBe('http://127.0.0.1:2002');
    expect(f.get('data-dir')).toBe('/w/etcd');
    expect(f.has('unsafe-no-fsync')).toBe(true);
  });

  it('kube-apiserver refuses the ServiceAccount admission plugin in bare mode only', () => {
    const input = { etcdEndpoint: 'http://127.0.0.1:2001', port: 6443, pki };
    const bare = flags(apiServerArgs({ ...input, mode: 'bare' }));
    const workloads = flags(apiServerArgs({ ...input, mode: 'workloads' }));
    expect(bare.get('disable-admission-plugins')).toBe('ServiceAccount');
    expect(workloads.has('disable-admission-plugins')).toBe(false);
    // Kubelet requests (exec, logs) go to kwok on loopback, named by each node's InternalDNS.
    expect(workloads.get('kubelet-preferred-address-types')).toBe(
      'InternalDNS,InternalIP,Hostname',
    );
    expect(bare.has('kubelet-preferred-address-types')).toBe(false);
    // Real kubelets authenticate the apiserver by its client certificate (logs, exec).
    expect(workloads.get('kubelet-client-certificate')).toBe('/w/pki/kubelet-client.crt');
    expect(workloads.get('kubelet-client-key')).toBe('/w/pki/kubelet-client.key');
    expect(bare.has('kubelet-client-certificate')).toBe(false);
    for (const f of [bare, workloads]) {
      expect(f.get('secure-port')).toBe('6443');
      expect(f.get('bind-address')).toBe('127.0.0.1');
      expect(f.get('service-account-issuer')).toBe('https://127.0.0.1:6443/');
      expect(f.get('service-account-signing-key-file')).toBe('/w/pki/sa.key');
      expect(f.get('authorization-mode')).toBe('RBAC');
    }
  });

  it('kube-apiserver serves /debug/pprof only when a benchmark asks for it', () => {
    const input = { mode: 'bare' as const, etcdEndpoint: 'http://127.0.0.1:2001', port: 6443, pki };
    expect(flags(apiServerArgs(input)).get('profiling')).toBe('false');
    expect(flags(apiServerArgs({ ...input, profiling: true })).get('profiling')).toBe('true');
    expect(() => apiServerArgs({ ...input, extraArgs: ['--profiling=true'] })).toThrow(
      /--profiling/,
    );
  });

  it('kube-apiserver takes extra flags after its own, and refuses one it sets itself', () => {
    const input = { mode: 'bare' as const, etcdEndpoint: 'http://127.0.0.1:2001', port: 6443, pki };
    const args = apiServerArgs({
      ...input,
      extraArgs: ['--audit-log-path=/w/audit.log', '--audit-policy-file=/w/policy.yaml'],
    });
    expect(args.slice(-2)).toEqual([
      '--audit-log-path=/w/audit.log',
      '--audit-policy-file=/w/policy.yaml',
    ]);
    expect(flags(args).get('secure-port')).toBe('6443');
    expect(() => apiServerArgs({ ...input, extraArgs: ['--secure-port=1'] })).toThrow(
      /sets --secure-port, which the local control plane sets itself/,
    );
    expect(() =>
      apiServerArgs({ ...input, extraArgs: ['--authorization-mode=AlwaysAllow'] }),
    ).toThrow(/--authorization-mode/);
    expect(() => apiServerArgs({ ...input, extraArgs: ['audit-log-path=/x'] })).toThrow(
      /not a --name=value flag/,
    );
  });

  it('kube-controller-manager serves no port, signs tokens and runs the workload controllers', () => {
    const f = flags(controllerManagerArgs({ kubeconfig: '/w/kcm.kubeconfig', pki }));
    expect(f.get('kubeconfig')).toBe('/w/kcm.kubeconfig');
    expect(f.get('secure-port')).toBe('0');
    expect(f.get('leader-elect')).toBe('false');
    expect(f.get('service-account-private-key-file')).toBe('/w/pki/sa.key');
    expect(f.get('root-ca-file')).toBe('/w/pki/serving-ca.crt');
    expect(f.get('use-service-account-credentials')).toBe('true');
    expect(f.get('enable-hostpath-provisioner')).toBe('true');
    // Delegated authn/authz kubeconfigs would only log noise: the apiserver has no
    // requestheader CA.
    expect(f.has('authentication-kubeconfig')).toBe(false);
    const controllers = (f.get('controllers') ?? '').split(',');
    expect(controllers).toEqual(CONTROLLERS);
    for (const needed of [
      'serviceaccount-token-controller',
      'serviceaccount-controller',
      'namespace-controller',
      'garbage-collector-controller',
      'deployment-controller',
      'replicaset-controller',
      'statefulset-controller',
      'daemonset-controller',
      'job-controller',
      'cronjob-controller',
      'persistentvolume-binder-controller',
      'node-lifecycle-controller',
    ]) {
      expect(controllers).toContain(needed);
    }
    // No wildcard: kcm's defaults include cloud and certificate controllers this cluster lacks.
    expect(controllers).not.toContain('*');
    expect(new Set(controllers).size).toBe(controllers.length);
  });

  it('kube-scheduler serves no port and does not elect a leader', () => {
    const f = flags(schedulerArgs({ kubeconfig: '/w/s.kubeconfig' }));
    expect(f.get('kubeconfig')).toBe('/w/s.kubeconfig');
    expect(f.get('secure-port')).toBe('0');
    expect(f.get('leader-elect')).toBe('false');
    // A pod that missed the event making it schedulable is tried again within half a minute.
    expect(f.get('pod-max-in-unschedulable-pods-duration')).toBe('30s');
  });

  it('kwok gets its kubeconfig and stages explicitly, fake nodes only, and a pod CIDR apart from services', () => {
    const f = flags(
      kwokArgs({
        kubeconfig: '/w/kwok.kubeconfig',
        stagesFile: '/w/stages.yaml',
        serverPort: 4321,
      }),
    );
    expect(f.get('kubeconfig')).toBe('/w/kwok.kubeconfig');
    expect(f.get('config')).toBe('/w/stages.yaml');
    expect(f.get('manage-nodes-with-annotation-selector')).toBe('kwok.x-k8s.io/node=fake');
    expect(f.has('manage-all-nodes')).toBe(false);
    // Its kubelet server (exec through Exec objects) listens on loopback only.
    expect(f.get('server-address')).toBe('127.0.0.1:4321');
    expect(f.get('enable-crds')).toBe('Exec');
    const pods = cidrRange(f.get('cidr') ?? '');
    const apiFlags = flags(
      apiServerArgs({ mode: 'workloads', etcdEndpoint: 'http://x', port: 1, pki }),
    );
    const services = cidrRange(apiFlags.get('service-cluster-ip-range') ?? '');
    expect(pods[1] < services[0] || pods[0] > services[1]).toBe(true);
  });
});
