// The backoff policies live in src/kube/backoff.ts (pure bookkeeping, needed by the kube
// layer's cluster gate, which must not import runtime); runtime keeps its import path.
export * from '../kube/backoff.ts';
