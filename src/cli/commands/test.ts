/**
 * `test`: KUDO's CLI had kuttl built in (`kubectl kudo test` = `kubectl kuttl test`); Planwright
 * runs the `kubectl-kuttl` found on PATH with the same arguments, its output and exit code
 * passed through.
 */
import { spawn } from 'node:child_process';
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { ChildExitError, CliError } from '../errors.ts';
import { globals } from '../options.ts';

export const KUTTL_HINT =
  "kubectl-kuttl is not on PATH: `kubectl kudo test` runs kuttl, which KUDO's CLI had built in. " +
  'Install it (`kubectl krew install kuttl`, or `go install github.com/kudobuilder/kuttl/cmd/kubectl-kuttl@latest` ' +
  'and add $(go env GOPATH)/bin to PATH), then run the command again';

export function testCommand(ctx: CliContext): Command {
  return new Command('test')
    .description('Run integration tests against a Kubernetes cluster (runs kubectl-kuttl test).')
    .argument('[args...]', 'arguments for kuttl test (test folders, --config, --test, …)')
    .allowUnknownOption(true)
    .helpOption(false)
    .action(async (args: string[], _flags: unknown, cmd: Command) => {
      const global = globals(cmd);
      const forwarded = [
        ...args,
        ...(global.kubeconfig ? ['--kubeconfig', global.kubeconfig] : []),
        ...(global.namespace ? ['--namespace', global.namespace] : []),
      ];
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn('kubectl-kuttl', ['test', ...forwarded], {
          cwd: ctx.cwd,
          env: ctx.env,
          stdio: 'inherit',
          signal: ctx.signal,
        });
        child.once('error', (err: NodeJS.ErrnoException) =>
          reject(err.code === 'ENOENT' ? new CliError(KUTTL_HINT) : err),
        );
        child.once('close', (c, signal) => resolve(c ?? (signal ? 128 + 15 : 1)));
      });
      if (code !== 0) throw new ChildExitError(`kuttl test failed with exit code ${code}`, code);
    });
}
