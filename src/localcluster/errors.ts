/** Errors of the embedded control plane, each carrying what a person needs to act. */

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

/** etcd or kube-apiserver did not start, or did not become ready in time. */
export class ControlPlaneStartError extends Error {
  override readonly name = 'ControlPlaneStartError';
  constructor(
    message: string,
    readonly component: 'etcd' | 'kube-apiserver',
    readonly logTail: string,
  ) {
    super(`${message}\n--- last lines of ${component}'s log ---\n${logTail}`);
  }
}
