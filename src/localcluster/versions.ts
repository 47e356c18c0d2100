/**
 * The control-plane versions the Go wrapper modules in test/controlplane/ pin. Keep in step
 * with test/controlplane/kubernetes/go.mod, test/controlplane/etcd/go.mod and
 * test/controlplane/clients/go.mod (kwok and the registry).
 */
export const KUBERNETES_VERSION = 'v1.34.4';
export const ETCD_VERSION = 'v3.6.16';
export const KWOK_VERSION = 'v0.8.0';
/** go-containerregistry, whose `cmd/registry` is the local image registry of real nodes. */
export const REGISTRY_VERSION = 'v0.22.1';
