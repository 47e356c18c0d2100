/** Errors of the embedded control plane, each carrying what a person needs to act. */

/** The processes a local cluster runs, by the name of their binary. */
export type ComponentName =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok'
  | 'registry'
  | 'containerd'
  | 'kubelet';

/** `go` is not on PATH, or the build of a control-plane binary failed. */
export class ControlPlaneBuildError extends Error {
  override readonly name = 'ControlPlaneBuildError';
  constructor(
    message: string,
    readonly binary: string,
    readonly output?: string,
  ) {
    super(message);
  }
}

/** A component did not start, or the cluster did not become ready in time. */
export class ControlPlaneStartError extends Error {
  override readonly name = 'ControlPlaneStartError';
  constructor(
    message: string,
    readonly component: ComponentName,
    readonly logTail: string,
  ) {
    super(`${message}\n--- last lines of ${component}'s log ---\n${logTail}`);
  }
}
