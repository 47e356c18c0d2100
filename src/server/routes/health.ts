/**
 * `/healthz` (the process answers) and `/readyz` (every registered readiness check passes).
 * Readiness inputs come from outside: the TLS source adds "certificate loaded" and
 * "CA bundle injected", the manager may add "caches synced".
 *
 * @example
 * const checks = new ReadinessChecks();
 * checks.add('caches-synced', () => cache.synced);
 * app.get('/readyz', readyzRoute(checks));
 */
import type { Request, Response } from 'express';
import { ServerConfigError } from '../errors.ts';

export type ReadinessCheck = () => boolean;

export class ReadinessChecks {
  private readonly checks = new Map<string, ReadinessCheck>();

  add(name: string, check: ReadinessCheck): void {
    if (!name) throw new ServerConfigError('a readiness check needs a name', 'readiness check');
    if (this.checks.has(name)) {
      throw new ServerConfigError(`"${name}" is already registered`, 'readiness check');
    }
    this.checks.set(name, check);
  }

  /** Each check by name; a check that throws counts as failing. */
  evaluate(): { ready: boolean; checks: Record<string, boolean> } {
    const checks: Record<string, boolean> = {};
    let ready = true;
    for (const [name, check] of this.checks) {
      let ok = false;
      try {
        ok = check();
      } catch {
        ok = false;
      }
      checks[name] = ok;
      if (!ok) ready = false;
    }
    return { ready, checks };
  }
}

export function healthzRoute(): (req: Request, res: Response) => void {
  return (_req: Request, res: Response): void => {
    res.status(200).json({ status: 'ok' });
  };
}

export function readyzRoute(checks: ReadinessChecks): (req: Request, res: Response) => void {
  return (_req: Request, res: Response): void => {
    const result = checks.evaluate();
    res.status(result.ready ? 200 : 503).json(result);
  };
}
