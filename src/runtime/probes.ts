/**
 * The one registry of `/readyz` and `/healthz` inputs, served by the webhook server.
 *
 * * readiness: may this replica receive admission requests? (TLS loaded, CA bundle injected,
 *   the caches the webhooks read synced). A failing check takes the Pod out of the Service.
 * * liveness: is the process still making progress? (event loop turning, watches alive). A
 *   failing check makes the kubelet restart the container.
 *
 * A check that throws or rejects counts as failing.
 */
import { RuntimeConfigError } from './errors.ts';

export type ProbeCheck = () => boolean | Promise<boolean>;

export interface ProbeResult {
  readonly ok: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
}

export type ProbeKind = 'readyz' | 'healthz';

export class Probes {
  private readonly checks: Record<ProbeKind, Map<string, ProbeCheck>> = {
    readyz: new Map(),
    healthz: new Map(),
  };

  addReadyz(name: string, check: ProbeCheck): void {
    this.add('readyz', name, check);
  }

  addHealthz(name: string, check: ProbeCheck): void {
    this.add('healthz', name, check);
  }

  readyz(): Promise<ProbeResult> {
    return this.evaluate('readyz');
  }

  healthz(): Promise<ProbeResult> {
    return this.evaluate('healthz');
  }

  private add(kind: ProbeKind, name: string, check: ProbeCheck): void {
    if (!name) throw new RuntimeConfigError('a check needs a name', `${kind} check`);
    if (this.checks[kind].has(name)) {
      throw new RuntimeConfigError(`"${name}" is already registered`, `${kind} check`);
    }
    this.checks[kind].set(name, check);
  }

  private async evaluate(kind: ProbeKind): Promise<ProbeResult> {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of this.checks[kind]) {
      checks[name] = await Promise.resolve()
        .then(check)
        .then((ok) => ok === true)
        .catch(() => false);
    }
    return { ok: Object.values(checks).every(Boolean), checks };
  }
}
