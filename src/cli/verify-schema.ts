/**
 * `package verify`'s look at the cluster, when a kubeconfig names one: the objects each template
 * renders (with verify's placeholder values) are held against that cluster's OpenAPI schema,
 * and every field it does not know — which Planwright drops when it applies the object — is a
 * warning. Without a kubeconfig verify stays offline, as KUDO's was; a cluster that does not
 * answer (within --request-timeout, default 5 s) adds nothing.
 */
import { OpenApiSchemas, describeObject } from '../kube/index.ts';
import type { CliContext, GlobalOptions } from './context.ts';
import { CliError } from './errors.ts';

/** A template's objects as verify rendered them. */
export interface RenderedTemplate {
  readonly template: string;
  readonly objects: readonly Record<string, unknown>[];
}

const DEFAULT_TIMEOUT_MS = 5_000;

export async function schemaWarnings(
  ctx: CliContext,
  global: GlobalOptions,
  rendered: readonly RenderedTemplate[],
): Promise<string[]> {
  let cluster;
  try {
    cluster = await ctx.cluster(global, false);
  } catch (err) {
    if (err instanceof CliError) return []; // no kubeconfig: offline, as KUDO
    throw err;
  }
  const schemas = new OpenApiSchemas({
    client: cluster.client,
    timeoutMs: cluster.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  const warnings: string[] = [];
  for (const { template, objects } of rendered) {
    for (const object of objects) {
      const found = await schemas.withoutUnknownFields(object, ctx.signal);
      if (!found || found.dropped.length === 0) continue;
      const them = found.dropped.length === 1 ? 'it' : 'them';
      warnings.push(
        `template ${template}: ${describeObject(object)}: the cluster's schema of ${found.schema} has no field ${found.dropped.join(', ')}; Planwright drops ${them} when it applies the object. Remove ${them} from the package`,
      );
    }
  }
  return warnings;
}
