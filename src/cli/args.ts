/** Command-line options of `planwright` (npm start). */
export interface StartOptions {
  /** Explicit kubeconfig path (--kubeconfig); otherwise KUBECONFIG, ~/.kube/config, in-cluster. */
  readonly kubeconfig?: string;
  /** Always run against the embedded local control plane (--local). */
  readonly local: boolean;
  readonly help: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: npm start -- [options]

Runs Planwright against the cluster of your kubeconfig, or, when there is none, against an
embedded local control plane (kube-apiserver + etcd built from Go modules on first use).

Options:
  --kubeconfig <path>  kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config,
                       then the in-cluster service account)
  --local              ignore any kubeconfig and start the embedded local control plane
  -h, --help           show this help
`;

export function parseStartArgs(argv: readonly string[]): StartOptions {
  let kubeconfig: string | undefined;
  let local = false;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') help = true;
    else if (arg === '--local') local = true;
    else if (arg === '--kubeconfig' || arg.startsWith('--kubeconfig=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (!value)
        throw new UsageError('--kubeconfig needs a file path, e.g. --kubeconfig ~/.kube/config');
      kubeconfig = value;
    } else {
      throw new UsageError(`unknown argument "${arg}"; run with --help for the options`);
    }
  }
  if (local && kubeconfig) {
    throw new UsageError('--local and --kubeconfig exclude each other: choose one cluster');
  }
  return { kubeconfig, local, help };
}
