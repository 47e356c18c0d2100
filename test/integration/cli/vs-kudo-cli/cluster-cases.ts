/**
 * The cluster half of the CLI differential test: one scenario of commands that read and change
 * the cluster, run step by step by both CLIs, each in its own namespace of the same control
 * plane, and what is normalised before the outputs are compared (each normalisation is listed
 * in docs/cli.md).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../../../../src/localcluster/paths.ts';
import { withoutBusyVerifierWarning } from '../built-cli.ts';

export interface ClusterStep {
  /**
   * The arguments, split at spaces; `{ns}` is the CLI's namespace. `--namespace {ns}` is
   * appended unless the command names a namespace itself (or is `version`).
   */
  readonly command: string;
  /** After the step, wait until this Instance's scheduled plan is over in both namespaces. */
  readonly settle?: { readonly instance: string; readonly namespace?: string };
}

const HELLO = 'hello';
const NEW_NS = '{ns}-new';

/** The scenario, in order: each step sees what the steps before it left behind. */
export const CLUSTER_STEPS: readonly ClusterStep[] = [
  { command: 'version' },
  { command: 'get instances' },
  { command: 'get all' },
  { command: 'get nothing' },
  { command: 'plan status --instance hello' },
  { command: 'install' },
  { command: 'install ./missing' },
  { command: 'install ./hello-config -p message' },
  { command: 'install ./long-values' },
  { command: 'install ./hello-config --instance hello', settle: { instance: HELLO } },
  { command: 'install ./hello-config --instance hello' },
  { command: 'install ./hello-config --skip-instance' },
  { command: 'install ./hello-config', settle: { instance: 'hello-config-instance' } },
  { command: 'install ./hello-config --instance waited -p message=hi --wait' },
  { command: 'install ./zookeeper --skip-instance' },
  {
    command: `install ./hello-config --instance fresh --namespace ${NEW_NS} --create-namespace`,
    settle: { instance: 'fresh', namespace: NEW_NS },
  },
  { command: `install ./hello-config --instance again --namespace ${NEW_NS} --create-namespace` },
  { command: 'get instances' },
  { command: 'get operators' },
  { command: 'get operatorversions' },
  { command: 'get all' },
  { command: 'plan status --instance hello' },
  { command: 'plan status --instance hello -o yaml' },
  { command: 'plan status --instance hello -o json' },
  { command: 'plan status --instance hello -o table' },
  { command: 'plan status' },
  { command: 'plan history --instance hello' },
  { command: 'plan history --instance nope' },
  { command: 'plan history' },
  { command: 'plan trigger --name update --instance hello', settle: { instance: HELLO } },
  { command: 'plan trigger --name nope --instance hello' },
  { command: 'plan trigger --instance hello' },
  { command: 'plan trigger --name update' },
  { command: 'plan status --instance hello' },
  { command: 'plan history --instance hello' },
  { command: 'update --instance hello -p message=changed', settle: { instance: HELLO } },
  { command: 'update --instance hello -p greeting=x' },
  { command: 'update --instance nope -p message=x' },
  { command: 'update --instance hello' },
  { command: 'update -p message=x' },
  { command: 'update --instance hello -p message=waited --wait' },
  { command: 'upgrade ./hello-config-v2 --instance hello', settle: { instance: HELLO } },
  { command: 'upgrade ./hello-config-v2 --instance hello' },
  { command: 'upgrade ./hello-config-v2 --instance nope' },
  { command: 'upgrade ./hello-config-v2' },
  { command: 'plan status --instance hello' },
  { command: 'get all' },
  { command: 'uninstall --instance waited' },
  { command: 'uninstall --instance waited' },
  { command: 'uninstall' },
  { command: 'get instances' },
];

/** The scenario's own packages beside those of ../shared: hello-config and its next version. */
export function prepareClusterPackages(root: string): void {
  const hello = join(repositoryRoot(), 'examples', 'hello-config');
  cpSync(hello, join(root, 'hello-config'), { recursive: true });
  cpSync(hello, join(root, 'hello-config-v2'), { recursive: true });
  const operator = join(root, 'hello-config-v2', 'operator.yaml');
  writeFileSync(
    operator,
    readFileSync(operator, 'utf8').replace(/^operatorVersion: .*$/m, 'operatorVersion: 0.2.0'),
  );
}

/** The argument vector of a step for the CLI working in `namespace`. */
export function stepArgs(step: ClusterStep, namespace: string, kubeconfig: string): string[] {
  const args = step.command.replaceAll('{ns}', namespace).split(' ');
  const namesNamespace = step.command.includes('--namespace') || step.command === 'version';
  return [
    ...args,
    ...(namesNamespace ? [] : ['--namespace', namespace]),
    '--kubeconfig',
    kubeconfig,
  ];
}

/**
 * What may differ between the two runs for reasons outside either CLI: the namespace each
 * runs in, times and generated uids, and the package verifier's warning, which Planwright's
 * webhook adds (to both CLIs alike) only when verification outlasts its budget on a busy
 * machine.
 */
export function normaliseClusterOutput(text: string, namespace: string): string {
  return withoutBusyVerifierWarning(text)
    .replaceAll(namespace, '<ns>')
    .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?Z?/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>');
}
