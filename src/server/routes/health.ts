/**
 * `/healthz` and `/readyz`, answered from the one {@link Probes} registry (the manager's):
 * 200 with each check by name while all pass, 503 otherwise.
 */
import type { Request, Response } from 'express';
import type { ProbeResult, Probes } from '../../runtime/index.ts';

function probeRoute(
  evaluate: () => Promise<ProbeResult>,
): (req: Request, res: Response, next: (err: unknown) => void) => void {
  return (_req, res, next): void => {
    evaluate()
      .then((result) => res.status(result.ok ? 200 : 503).json(result))
      .catch(next);
  };
}

export function healthzRoute(probes: Probes): ReturnType<typeof probeRoute> {
  return probeRoute(() => probes.healthz());
}

export function readyzRoute(probes: Probes): ReturnType<typeof probeRoute> {
  return probeRoute(() => probes.readyz());
}
