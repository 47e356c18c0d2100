/**
 * The install check every cluster command makes first (unless --validate-install=false): the
 * three kudo.dev CRDs exist, are Established and serve v1beta1. KUDO failed every command when
 * the user could not read CRDs; here a 403 skips the check, since the commands themselves only
 * need rights on the kudo.dev objects.
 */
import { ApiError, crdEstablished, type ApplyObject, type KubeClient } from '../kube/index.ts';
import { CliError } from './errors.ts';

export const KUDO_CRDS = ['operators.kudo.dev', 'operatorversions.kudo.dev', 'instances.kudo.dev'];

interface Crd extends ApplyObject {
  spec?: { versions?: Array<{ name?: string; served?: boolean }> };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** The problems found, empty when the CRDs are fine or may not be read. */
export async function kudoCrdProblems(client: KubeClient, timeoutMs?: number): Promise<string[]> {
  const problems: string[] = [];
  for (const name of KUDO_CRDS) {
    let crd: Crd;
    try {
      crd = await client.request<Crd>({
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 403) return [];
      if (err instanceof ApiError && err.statusCode === 404) {
        problems.push(`CRD ${name} is not installed`);
        continue;
      }
      throw err;
    }
    if (!crdEstablished(crd)) problems.push(`CRD ${name} is not Established`);
    if (!crd.spec?.versions?.some((v) => v.name === 'v1beta1' && v.served === true)) {
      problems.push(`CRD ${name} does not serve version v1beta1`);
    }
  }
  return problems;
}

export async function assertKudoCrds(client: KubeClient, timeoutMs?: number): Promise<void> {
  const problems = await kudoCrdProblems(client, timeoutMs);
  if (problems.length > 0) {
    throw new CliError(
      `CRDs invalid: ${problems.join(', ')}. Install Planwright with \`kubectl kudo init\` ` +
        '(or skip this check with --validate-install=false)',
    );
  }
}
