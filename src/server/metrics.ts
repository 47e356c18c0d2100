/**
 * Prometheus metrics of the webhook server, registered on the `Registry` passed in (never
 * prom-client's global one, so two servers in one process — tests — do not collide).
 *
 * See examples/api/server.ts.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WebhookType } from './admission/handler.ts';

/** How a review ended: answered allowed or denied, handler error/timeout, or bad input. */
export type AdmissionOutcome = 'allowed' | 'denied' | 'error' | 'bad_request';

/**
 * One webhook's live figures. Counts are plain numbers, handed to prom-client when it
 * collects (a scrape): prom-client validates and hashes labels on every inc/dec, which on a
 * no-op review cost as much as the rest of the route. The duration histogram is observed
 * directly, through a child bound to its labels.
 */
interface WebhookFigures {
  readonly labels: { readonly webhook: string; readonly type: WebhookType };
  inFlight: number;
  /** Answered since the last collect, by outcome. */
  readonly pending: Record<AdmissionOutcome, number>;
  readonly duration: { observe(value: number): void };
}

const OUTCOMES: readonly AdmissionOutcome[] = ['allowed', 'denied', 'error', 'bad_request'];

export class ServerMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'webhook' | 'type' | 'outcome'>;
  private readonly duration: Histogram<'webhook' | 'type'>;
  private readonly inFlight: Gauge<'webhook' | 'type'>;
  private readonly certificateExpiry: Gauge;
  private readonly certificateReloads: Counter;
  /** TLS connections accepted since the last collect, by handshake kind. */
  private readonly pendingConnections = { full: 0, resumed: 0 };
  /** By type, then webhook name: no key string is built per review. */
  private readonly byType: Record<WebhookType, Map<string, WebhookFigures>> = {
    mutating: new Map(),
    validating: new Map(),
  };

  constructor(registry: Registry) {
    this.registry = registry;
    const registers = [registry];
    const byType = this.byType;
    const all = (): WebhookFigures[] => [
      ...byType.mutating.values(),
      ...byType.validating.values(),
    ];
    this.requests = new Counter({
      name: 'planwright_webhook_requests_total',
      help: 'Admission reviews answered, by webhook, type and outcome.',
      labelNames: ['webhook', 'type', 'outcome'],
      registers,
      collect() {
        for (const f of all()) {
          for (const outcome of OUTCOMES) {
            const n = f.pending[outcome];
            if (n === 0) continue;
            this.inc({ ...f.labels, outcome }, n);
            f.pending[outcome] = 0;
          }
        }
      },
    });
    this.duration = new Histogram({
      name: 'planwright_webhook_request_duration_seconds',
      help: 'Time from request start to answer, by webhook and type.',
      labelNames: ['webhook', 'type'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'planwright_webhook_requests_in_flight',
      help: 'Admission reviews being handled, by webhook and type.',
      labelNames: ['webhook', 'type'],
      registers,
      collect() {
        for (const f of all()) this.set(f.labels, f.inFlight);
      },
    });
    this.certificateExpiry = new Gauge({
      name: 'planwright_webhook_certificate_expiry_timestamp_seconds',
      help: 'notAfter of the serving certificate in use (Unix seconds).',
      registers,
    });
    const pendingConnections = this.pendingConnections;
    // Every connection the apiserver opens costs a handshake (the serving key signs on a
    // full one): this shows whether its webhook client keeps its connections.
    new Counter({
      name: 'planwright_webhook_tls_connections_total',
      help: 'TLS connections accepted, by handshake (full or resumed).',
      labelNames: ['handshake'],
      registers,
      collect() {
        for (const handshake of ['full', 'resumed'] as const) {
          this.inc({ handshake }, pendingConnections[handshake]);
          pendingConnections[handshake] = 0;
        }
      },
    });
    this.certificateReloads = new Counter({
      name: 'planwright_webhook_certificate_reloads_total',
      help: 'Times a new serving certificate was swapped in.',
      registers,
    });
  }

  /** Starts timing one review; call the returned function exactly once with the outcome. */
  begin(webhook: string, type: WebhookType): (outcome: AdmissionOutcome) => void {
    const f = this.figuresFor(webhook, type);
    f.inFlight++;
    const start = process.hrtime.bigint();
    return (outcome) => {
      f.inFlight--;
      f.duration.observe(Number(process.hrtime.bigint() - start) / 1e9);
      f.pending[outcome]++;
    };
  }

  private figuresFor(webhook: string, type: WebhookType): WebhookFigures {
    let f = this.byType[type].get(webhook);
    if (!f) {
      const labels = { webhook, type };
      f = {
        labels,
        inFlight: 0,
        pending: { allowed: 0, denied: 0, error: 0, bad_request: 0 },
        duration: this.duration.labels(labels),
      };
      // Zero series from the start, so a rate() sees the first review.
      for (const outcome of OUTCOMES) this.requests.inc({ ...labels, outcome }, 0);
      this.byType[type].set(webhook, f);
    }
    return f;
  }

  /** One TLS connection accepted, after its handshake. */
  connectionAccepted(resumed: boolean): void {
    this.pendingConnections[resumed ? 'resumed' : 'full']++;
  }

  certificateLoaded(notAfter: Date): void {
    this.certificateExpiry.set(notAfter.getTime() / 1000);
    this.certificateReloads.inc();
  }
}
