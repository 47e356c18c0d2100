// The backoff policies live in src/kube/backoff.ts (pure bookkeeping, needed by the kube
// layer's cluster gate, which must not import runtime); runtime keeps its import path.
export {
  exponentialDelayMs,
  JitteredBackoff,
  ItemExponentialBackoff,
  BucketRateLimiter,
  type JitteredBackoffOptions,
  type ItemBackoffOptions,
  type BucketRateLimiterOptions,
} from '../kube/index.ts';
