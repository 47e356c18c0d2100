// Test-side probes of Planwright started as users start it (planwright-start.ts): its webhook
// called directly over HTTPS (latency, even while the apiserver is paused), its metrics, and
// the resident memory of it and its render workers.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { instanceReview } from './admission.ts';
import type { StartedPlanwright } from './planwright-start.ts';

/** Resident memory (bytes) of `pid` and all its descendants (render workers), and of each. */
export function treeRss(pid: number): {
  total: number;
  processes: number;
  each: Array<{ pid: number; rss: number; command: string }>;
} {
  let total = 0;
  let processes = 0;
  const each: Array<{ pid: number; rss: number; command: string }> = [];
  const visit = (p: number): void => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const command = readFileSync(`/proc/${p}/cmdline`, 'utf8')
        .split('\0')
        .join(' ')
        .slice(0, 120);
      total += kb * 1024;
      processes += 1;
      each.push({ pid: p, rss: kb * 1024, command });
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const c of children ? children.split(/\s+/) : []) visit(Number(c));
    } catch {
      // The process ended meanwhile.
    }
  };
  visit(pid);
  return { total, processes, each };
}

/**
 * An agent for the webhook server of `planwright start --install`: its development certificate
 * is made at start and not the test's to trust (the probe measures answers, not TLS).
 */
export function webhookAgent(options: https.AgentOptions = {}): https.Agent {
  return new https.Agent({ ...options, rejectUnauthorized: false });
}

/** One HTTPS request to the webhook server. */
export function call(
  child: { readonly port: number },
  agent: https.Agent,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: child.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        agent,
        timeout: 15_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${path} within 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** `leader_election_master_status` from /metrics (1 leader, 0 not). */
export async function leaderStatus(child: StartedPlanwright): Promise<number> {
  const text = await child.metrics();
  const m = /^leader_election_master_status\{[^}]*\} (\d)/m.exec(text);
  return Number(m?.[1] ?? -1);
}

/** Workers of the render pool by state, from /metrics (-1: not reported). */
export async function renderWorkers(
  child: StartedPlanwright,
): Promise<{ readonly starting: number; readonly ready: number }> {
  const text = await child.metrics();
  const count = (state: string): number => {
    const m = new RegExp(
      `^planwright_render_workers\\{pool="render",state="${state}"\\} (\\d+)`,
      'm',
    ).exec(text);
    return Number(m?.[1] ?? -1);
  };
  return { starting: count('starting'), ready: count('ready') };
}

/**
 * Sends an Instance CREATE review to the webhook every `intervalMs` until stopped and keeps
 * the latencies: what the apiserver (and so every user) would wait for.
 */
export class WebhookProbe {
  readonly latenciesMs: number[] = [];
  readonly failures: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private n = 0;
  private readonly agent: https.Agent;

  constructor(
    private readonly child: { readonly port: number },
    private readonly namespace: string,
    private readonly operatorVersion: string,
  ) {
    this.agent = webhookAgent({ keepAlive: true, maxSockets: 4 });
  }

  start(intervalMs = 25): void {
    const tick = (): void => {
      const uid = `probe-${this.n++}`;
      const body = JSON.stringify(
        instanceReview({
          uid,
          namespace: this.namespace,
          operation: 'CREATE',
          userInfo: { username: 'probe' },
          object: {
            metadata: { name: uid, namespace: this.namespace },
            spec: { operatorVersion: { name: this.operatorVersion }, parameters: {} },
          },
          dryRun: true,
        }),
      );
      const started = performance.now();
      call(this.child, this.agent, '/mutate/instances', body).then(
        (res) => {
          this.latenciesMs.push(performance.now() - started);
          const answer = JSON.parse(res.text) as { response?: { allowed?: boolean; uid?: string } };
          if (res.status !== 200 || answer.response?.uid !== uid || !answer.response.allowed) {
            this.failures.push(`${res.status} ${res.text.slice(0, 300)}`);
          }
        },
        (err: Error) => this.failures.push(err.message),
      );
      this.timer = setTimeout(tick, intervalMs);
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.agent.destroy();
  }

  /** p50, p99 and max in ms over the latencies so far (after `from` samples). */
  summary(from = 0): { count: number; p50: number; p99: number; max: number } {
    const sorted = this.latenciesMs.slice(from).sort((a, b) => a - b);
    const at = (q: number): number =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return {
      count: sorted.length,
      p50: at(0.5),
      p99: at(0.99),
      max: sorted[sorted.length - 1] ?? 0,
    };
  }
}
