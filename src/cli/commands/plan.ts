/** `plan status|history|trigger|abort`: reading and driving the plans of one Instance. */
import { randomUUID } from 'node:crypto';
import { sleepOrThrow } from '../../runtime/index.ts';
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { CliError, PlanFailedError } from '../errors.ts';
import { requireInstance, requireOperatorVersion } from '../instances.ts';
import { apiMessage } from '../kudo-api.ts';
import { formatKudoStatus } from '../output/kudo-status.ts';
import { outputFormat } from '../output/objects.ts';
import { formatElapsed } from '../output/plan-progress.ts';
import { Redraw } from '../output/redraw.ts';
import {
  FAILED_STATUSES,
  RUNNING_STATUSES,
  lastExecutedPlan,
  renderPlanHistory,
  renderPlanStatus,
} from '../plan-view.ts';
import { addWaitOptions, globals, type WaitFlags } from '../options.ts';
import { waitForScheduledPlan } from '../wait.ts';

const INSTANCE_MISSING = "please choose the instance with '--instance=<instanceName>'";

interface StatusFlags {
  readonly instance?: string;
  readonly output?: string;
  readonly wait?: boolean;
}

export function planCommand(ctx: CliContext): Command {
  const plan = new Command('plan').description('View all available plans.');
  plan.addCommand(statusCommand(ctx));
  plan.addCommand(historyCommand(ctx));
  plan.addCommand(triggerCommand(ctx));
  plan.addCommand(abortCommand(ctx));
  return plan;
}

function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description('Shows the status of all plans of an instance.')
    .option('--instance <name>', 'The instance name available from `kubectl get instances`')
    .option('-o, --output <format>', 'Output format for command results (yaml|json)')
    .option('--wait', 'Wait until the active plan is done, redrawing the status', false)
    .action(async (flags: StatusFlags, command: Command) => {
      if (!flags.instance) throw new CliError(`required flag(s) "instance" not set`);
      const format = outputFormat(flags.output);
      const { api, namespace } = await ctx.cluster(globals(command));
      const instanceName = flags.instance;
      const read = async (): Promise<{ text: string; running: boolean; failed?: string }> => {
        const instance = await requireInstance(api, namespace, instanceName);
        if (format) return { text: formatKudoStatus(instance.status, format), running: false };
        const ov = await requireOperatorVersion(api, instance);
        const active = lastExecutedPlan(instance);
        // A run the webhook scheduled but the controller has not reported yet is running too.
        const pe = instance.spec?.planExecution;
        const unreported =
          !!pe?.planName && !!pe.uid && instance.status?.planStatus?.[pe.planName]?.uid !== pe.uid;
        return {
          text: renderPlanStatus(instance, ov, namespace),
          running: unreported || RUNNING_STATUSES.has(active?.status ?? ''),
          failed:
            active && FAILED_STATUSES.has(active.status ?? '')
              ? `plan "${active.name ?? ''}" ended ${active.status ?? ''}`
              : undefined,
        };
      };
      let view = await read();
      if (flags.wait && !format) {
        const started = Date.now();
        const redraw = ctx.term.isTTY ? new Redraw(ctx.term) : undefined;
        while (view.running) {
          redraw?.draw([
            ...view.text.split('\n'),
            `elapsed time ${formatElapsed(Date.now() - started)}`,
          ]);
          await sleepOrThrow(1000, ctx.signal);
          view = await read();
        }
        if (redraw) redraw.draw(view.text.replace(/\n$/, '').split('\n'));
        else ctx.term.write(view.text);
        if (view.failed)
          throw new PlanFailedError(`${view.failed} for instance ${namespace}/${instanceName}`);
        return;
      }
      ctx.term.write(view.text);
    });
}

function historyCommand(ctx: CliContext): Command {
  return new Command('history')
    .description('Lists history to a specific operator-version of an instance.')
    .option('--instance <name>', 'The instance name available from `kubectl get instances`')
    .action(async (flags: { instance?: string }, command: Command) => {
      if (!flags.instance) throw new CliError(INSTANCE_MISSING);
      try {
        const { api, namespace } = await ctx.cluster(globals(command));
        const instance = await requireInstance(api, namespace, flags.instance);
        ctx.term.write(renderPlanHistory(instance));
      } catch (err) {
        throw new CliError(
          `client Error: ${err instanceof CliError ? err.message : apiMessage(err)}`,
        );
      }
    });
}

interface TriggerFlags extends WaitFlags {
  readonly name?: string;
  readonly instance?: string;
}

function triggerCommand(ctx: CliContext): Command {
  return addWaitOptions(
    new Command('trigger')
      .description('Triggers a specific plan on a particular instance.')
      .option('--name <plan>', 'The plan name')
      .option('--instance <name>', 'The instance name available from `kubectl get instances`'),
    'the triggered plan to finish',
  ).action(async (flags: TriggerFlags, command: Command) => {
    if (!flags.instance) throw new CliError(INSTANCE_MISSING);
    if (!flags.name) throw new CliError("please choose the plan name with '--name=<planName>'");
    const { api, namespace } = await ctx.cluster(globals(command));
    await requireInstance(api, namespace, flags.instance);
    let patched;
    try {
      // The webhook validates the request (unknown plan, another plan running, cleanup) and
      // records its own uid; a fresh uid here makes re-triggering the same plan a change.
      patched = await api.patchInstance(namespace, flags.instance, {
        spec: { planExecution: { planName: flags.name, uid: randomUUID() } },
      });
    } catch (err) {
      // The server's message alone, as KUDO's CLI prints it: the webhook's denial names the
      // plan and the Instance already.
      throw new CliError(apiMessage(err));
    }
    ctx.term.out(`Triggered ${flags.name} plan for ${namespace}/${flags.instance} instance`);
    if (flags.wait) {
      await waitForScheduledPlan(ctx, api, patched, {
        planName: flags.name,
        waitTime: flags.waitTime,
      });
      ctx.term.out(`plan ${flags.name} of instance ${namespace}/${flags.instance} is COMPLETE`);
    }
  });
}

function abortCommand(ctx: CliContext): Command {
  return addWaitOptions(
    new Command('abort')
      .description(
        'Stops the running plan of an instance: the plan becomes ABORTED and the next change is accepted.',
      )
      .option('--instance <name>', 'The instance name available from `kubectl get instances`'),
    'the controller to mark the plan ABORTED',
  ).action(async (flags: WaitFlags & { instance?: string }, command: Command) => {
    if (!flags.instance) throw new CliError(INSTANCE_MISSING);
    const { api, namespace } = await ctx.cluster(globals(command));
    const current = await requireInstance(api, namespace, flags.instance);
    const requested = current.spec?.planExecution;
    if (requested?.abort === true) {
      // Writing abort: true again changes nothing, so the webhook lets it through silently;
      // say what state the run is in instead.
      const run = requested.planName ? current.status?.planStatus?.[requested.planName] : undefined;
      const state = run && run.uid === requested.uid ? run.status : undefined;
      if (state && state !== 'PENDING' && state !== 'IN_PROGRESS' && state !== 'ERROR') {
        throw new CliError(
          `nothing to abort: plan ${requested.planName ?? ''} of instance ${namespace}/${flags.instance} is already ${state}`,
        );
      }
    }
    let patched;
    try {
      // The documented request (docs/instance-admission.md): the webhook accepts it only while
      // a plan runs and only as the only change, and records who asked and when.
      patched = await api.patchInstance(namespace, flags.instance, {
        spec: { planExecution: { abort: true } },
      });
    } catch (err) {
      throw new CliError(
        `aborting the plan of instance ${namespace}/${flags.instance}: ${apiMessage(err)}`,
      );
    }
    const pe = patched.spec?.planExecution;
    const planName = pe?.planName ?? '';
    ctx.term.out(
      `Abort of plan ${planName} requested for ${namespace}/${flags.instance} instance` +
        (pe?.abortRequestedBy ? ` (by ${pe.abortRequestedBy})` : ''),
    );
    if (!flags.wait) return;
    const run = await waitForScheduledPlan(ctx, api, patched, {
      success: new Set(['ABORTED', 'COMPLETE', 'FATAL_ERROR']),
      waitTime: flags.waitTime,
    });
    if (run.status !== 'ABORTED') {
      throw new PlanFailedError(
        `plan ${planName} of instance ${namespace}/${flags.instance} ended ${run.status ?? ''} before the abort took effect`,
      );
    }
    ctx.term.out(`plan ${planName} of instance ${namespace}/${flags.instance} is ABORTED`);
  });
}
