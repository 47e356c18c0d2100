/**
 * The live view of one plan run while `--wait` waits: on a terminal, a tree of the plan's
 * phases and steps with their statuses, messages and elapsed time, redrawn in place; otherwise
 * one plain line per change, so logs and CI output stay readable.
 */
import type { PlanStatus } from '../../kudo/api/index.ts';
import type { Terminal } from '../io.ts';
import { Redraw } from './redraw.ts';
import { treeLines } from './tree.ts';

/** `7s`, `2m05s`, `1h02m`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

const RUNNING = new Set(['PENDING', 'IN_PROGRESS', 'ERROR']);
const message = (text: string | undefined): string => (text ? ` (${text})` : '');

function since(iso: string | null | undefined, now: number): string {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? '' : ` ${formatElapsed(now - t)}`;
}

/** The frame drawn on a terminal for the run (or for a run not started yet). */
export function progressFrame(
  planName: string,
  plan: PlanStatus | undefined,
  waitStarted: number,
  now: number,
): string[] {
  if (!plan) {
    return [
      `Plan ${planName} [PENDING] ${formatElapsed(now - waitStarted)} (waiting for Planwright to start it)`,
    ];
  }
  const started = plan.startedAt ? Date.parse(plan.startedAt) : waitStarted;
  const head = `Plan ${plan.name ?? planName} [${plan.status ?? ''}] ${formatElapsed(now - (Number.isNaN(started) ? waitStarted : started))}${message(plan.message)}`;
  const nodes = (plan.phases ?? []).map((phase) => ({
    text: `Phase ${phase.name ?? ''} [${phase.status ?? ''}]${message(phase.message)}`,
    children: (phase.steps ?? []).map((step) => ({
      text: `Step ${step.name ?? ''} [${step.status ?? ''}]${RUNNING.has(step.status ?? '') ? since(step.startedAt, now) : ''}${message(step.message)}`,
    })),
  }));
  return [head, ...treeLines(nodes)];
}

/** What changed between two observations, as plain lines (`deploy/main/step: COMPLETE`). */
export function progressChanges(
  planName: string,
  before: PlanStatus | undefined,
  after: PlanStatus | undefined,
): string[] {
  if (!after) return before ? [] : [`${planName}: waiting for Planwright to start the plan`];
  const lines: string[] = [];
  const key = (status: string | undefined, msg: string | undefined): string =>
    `${status ?? ''}${message(msg)}`;
  const name = after.name ?? planName;
  if (!before || key(before.status, before.message) !== key(after.status, after.message)) {
    lines.push(`${name}: ${key(after.status, after.message)}`);
  }
  for (const phase of after.phases ?? []) {
    const old = before?.phases?.find((p) => p.name === phase.name);
    if (!old || key(old.status, old.message) !== key(phase.status, phase.message)) {
      lines.push(`${name}/${phase.name ?? ''}: ${key(phase.status, phase.message)}`);
    }
    for (const step of phase.steps ?? []) {
      const prev = old?.steps?.find((s) => s.name === step.name);
      if (!prev || key(prev.status, prev.message) !== key(step.status, step.message)) {
        lines.push(
          `${name}/${phase.name ?? ''}/${step.name ?? ''}: ${key(step.status, step.message)}`,
        );
      }
    }
  }
  return lines;
}

/** Draws successive observations of one run on the terminal. */
export class PlanProgress {
  private readonly redraw: Redraw | undefined;
  private last: PlanStatus | undefined;
  private first = true;

  constructor(
    private readonly term: Terminal,
    private readonly planName: string,
    private readonly waitStarted: number,
  ) {
    this.redraw = term.isTTY ? new Redraw(term) : undefined;
  }

  update(plan: PlanStatus | undefined, now: number): void {
    if (this.redraw) {
      this.redraw.draw(progressFrame(this.planName, plan, this.waitStarted, now));
    } else if (this.first || plan) {
      const elapsed = formatElapsed(now - this.waitStarted);
      for (const line of progressChanges(this.planName, this.last, plan)) {
        this.term.out(`[${elapsed}] ${line}`);
      }
    }
    this.first = false;
    this.last = plan;
  }
}
