/**
 * Whose rights an Instance's plans write with in the home cluster (docs/security.md, "Acting
 * as a ServiceAccount"): the manager's, or — with `--default-service-account` or an allowed
 * `planwright.dev/service-account` annotation — a ServiceAccount of the Instance's namespace,
 * impersonated, as Flux's controllers do. Every write of a plan's objects (apply, delete,
 * prune, pipe pods and their exec, the pipe-pod sweep, the inventory's deletion) and the
 * reads that decide those writes (the adoption GET, health, Delete's look) go through the
 * impersonating client; what the engine reads and writes for its own bookkeeping (the
 * Instance and its status, OperatorVersions, Events, watch caches, discovery, the target
 * kubeconfig's Secret, finding unrecorded objects) stays with the manager's client.
 *
 * One client per ServiceAccount, kept until the controller stops: there are at most as many
 * as namespaces times the names an administrator allows.
 */
import type { Logger } from 'pino';
import {
  KubeClient,
  ServerSideApply,
  impersonatingKubeConfig,
  serviceAccountUser,
} from '../../kube/index.ts';
import type { Instance } from '../api/index.ts';
import { identityOf, type TenancyPolicy } from '../tasks/index.ts';

/** The Instance asks for an identity the policy refuses; nothing is written. */
export class IdentityRefusedError extends Error {
  override readonly name = 'IdentityRefusedError';
}

/** Who writes an Instance's objects in the home cluster. */
export interface HomeWriter {
  readonly ssa: ServerSideApply;
  /** `ServiceAccount <ns>/<name> (<where the choice came from>)`; undefined: the manager. */
  readonly actingAs?: string;
}

export interface IdentitiesOptions {
  /** The manager's own writer (its client and the home cluster's mapper). */
  readonly home: ServerSideApply;
  readonly fieldManager: string;
  readonly policy: TenancyPolicy;
  readonly logger: Logger;
}

export class Identities {
  private readonly writers = new Map<string, ServerSideApply>();

  constructor(private readonly options: IdentitiesOptions) {}

  /** The writer of `instance`'s home-cluster objects, or why its choice is refused. */
  writerFor(instance: Instance): HomeWriter | IdentityRefusedError {
    const identity = identityOf(this.options.policy, instance);
    if (identity.kind === 'manager') return { ssa: this.options.home };
    if (identity.kind === 'refuse') return new IdentityRefusedError(identity.message);
    const user = serviceAccountUser(identity.namespace, identity.name);
    let ssa = this.writers.get(user);
    if (!ssa) {
      const home = this.options.home;
      ssa = new ServerSideApply({
        client: new KubeClient(impersonatingKubeConfig(home.client.kubeConfig, user)),
        // Discovery is the manager's: every ServiceAccount reads the same API surface.
        mapper: home.mapper,
        fieldManager: this.options.fieldManager,
      });
      this.writers.set(user, ssa);
      this.options.logger.info({ user }, 'acting as a ServiceAccount for the first time');
    }
    return {
      ssa,
      actingAs: `ServiceAccount ${identity.namespace}/${identity.name} (${identity.source})`,
    };
  }

  /** Closes the impersonating clients' connections. */
  close(): void {
    for (const ssa of this.writers.values()) ssa.client.close();
    this.writers.clear();
  }
}
