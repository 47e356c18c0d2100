/**
 * Records what `package verify` finds in an OperatorVersion as a Warning Event on it
 * (`kubectl describe operatorversion` shows it), on the leader. The OperatorVersion webhook
 * admits such packages as KUDO does and returns the findings as admission warnings — but the
 * webhook never writes, and a warning is seen only by whoever applied the object. The Event
 * stays with the object for whoever installs an Instance of it later.
 *
 * Runs once per generation of each OperatorVersion (spec changes), verifying in the render
 * pool (bounded: deadline and heap limit).
 */
import type { Logger } from 'pino';
import { generationChanged, type Manager } from '../../runtime/index.ts';
import { OPERATOR_VERSION_GVK } from '../api/index.ts';
import type { Operator, OperatorVersion } from '../api/index.ts';
import type { VerifyResult } from '../verify/index.ts';
import { namespacedName } from '../../kube/index.ts';

export const VERIFY_EVENT_REASON = 'PackageVerifyErrors';
/** Errors an Event names; the rest are counted. */
const MAX_NAMED = 5;

export interface VerifyEventsOptions {
  readonly manager: Manager;
  readonly logger: Logger;
  readonly verify: (
    operatorVersion: OperatorVersion,
    namespaceManifest: string | undefined,
    signal: AbortSignal,
  ) => Promise<VerifyResult>;
  /** The Operator, for its namespaceManifest (the one template that may be a Namespace). */
  readonly operators: {
    get(namespace: string, name: string, signal: AbortSignal): Promise<Operator | undefined>;
  };
  /** Only OperatorVersions in these namespaces (start --watch-namespaces). Default all. */
  readonly namespaces?: (namespace: string) => boolean;
}

/** The Event message: how many errors, the first few with their fields, the way to see all. */
export function verifyEventMessage(result: VerifyResult): string | undefined {
  const errors = result.findings.filter((f) => f.severity === 'error');
  if (errors.length === 0) return undefined;
  const named = errors
    .slice(0, MAX_NAMED)
    .map((f) => `${f.field ? `${f.field}: ` : ''}${f.message}`)
    .join('; ');
  const more = errors.length > MAX_NAMED ? `; and ${errors.length - MAX_NAMED} more` : '';
  return `package verify found ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}: ${named}${more}. Admitted as KUDO admits it: a plan they affect fails when it runs (kubectl kudo package verify <folder> lists them all).`;
}

export function registerVerifyEvents(options: VerifyEventsOptions): void {
  const events = options.manager.events.forComponent('planwright-admission');
  const inScope = options.namespaces ?? ((): boolean => true);
  options.manager
    .controller()
    .named('operatorversion-verify')
    .for<OperatorVersion>(OPERATOR_VERSION_GVK, generationChanged)
    .workers(1)
    .complete(async (_key, signal, ov) => {
      if (!ov || ov.metadata.deletionTimestamp || !inScope(ov.metadata.namespace ?? '')) return;
      const namespace = ov.metadata.namespace ?? '';
      const operatorName = ov.spec?.operator?.name;
      let result: VerifyResult;
      try {
        const operator =
          typeof operatorName === 'string' && operatorName !== ''
            ? await options.operators.get(namespace, operatorName, signal)
            : undefined;
        const manifest = operator?.spec?.namespaceManifest;
        result = await options.verify(
          ov,
          typeof manifest === 'string' && manifest !== '' ? manifest : undefined,
          signal,
        );
      } catch (err) {
        // Only an Event depends on it; admission warned already.
        options.logger.info(
          { err, operatorVersion: namespacedName(ov.metadata) },
          'could not verify the OperatorVersion for its Event',
        );
        return;
      }
      const message = verifyEventMessage(result);
      if (message) events.record(ov, 'Warning', VERIFY_EVENT_REASON, message);
    });
}
