/** Looking up the Instance a verb names, and its OperatorVersion, with KUDO's messages. */
import type { Instance, OperatorVersion } from '../kudo/api/index.ts';
import { CliError } from './errors.ts';
import type { KudoApi } from './kudo-api.ts';
import { namespacedName } from '../kube/index.ts';

export async function requireInstance(
  api: KudoApi,
  namespace: string,
  name: string,
): Promise<Instance> {
  const instance = await api.getInstance(namespace, name);
  if (!instance) throw new CliError(`instance ${namespace}/${name} does not exist`);
  return instance;
}

/**
 * The OperatorVersion an Instance runs: spec.operatorVersion.name in
 * spec.operatorVersion.namespace when set (KUDO looked only in the Instance's namespace).
 */
export async function requireOperatorVersion(
  api: KudoApi,
  instance: Instance,
): Promise<OperatorVersion> {
  const namespace =
    instance.spec?.operatorVersion?.namespace || instance.metadata.namespace || 'default';
  const name = instance.spec?.operatorVersion?.name ?? '';
  const ov = name ? await api.getOperatorVersion(namespace, name) : undefined;
  if (!ov) {
    throw new CliError(
      `OperatorVersion ${name} from instance ${namespacedName(instance.metadata)} does not exist`,
    );
  }
  return ov;
}
