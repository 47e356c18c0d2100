// KUDO 0.19's own kubectl-kudo as the oracle: both CLIs run the same package commands on every
// package of ../shared and on broken variants of them, from the same folder with the same
// arguments; stdout, stderr and the exit code must be identical, or differ only as a row of
// docs/cli.md's "Deliberate differences from KUDO" table allows. The table of commands ×
// packages is printed; each documented row must be used by some case (no stale rows).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureKudoCli } from '../../support/kudo-cli.ts';
import { ensureBuiltCli, KUBECTL_KUDO, type CliResult } from './built-cli.ts';
import {
  PACKAGE_COMMANDS,
  preparePackages,
  readAllowedDifferences,
  runCli as run,
  type AllowedDifference,
  type Stream,
} from './vs-kudo-cli/cases.ts';

interface Outcome {
  readonly command: string;
  readonly pkg: string;
  readonly differs: readonly Stream[];
  readonly allowedBy?: AllowedDifference;
  readonly kudo: CliResult;
  readonly ours: CliResult;
}

/** The archive's entry names, appended to stdout: `package create` is compared by its listing. */
function archiveListing(folder: string): string {
  const files = spawnSync('sh', ['-c', 'ls *.tgz'], {
    cwd: folder,
    encoding: 'utf8',
  }).stdout.trim();
  if (!files) return '';
  const listing = spawnSync('tar', ['-tzf', files], { cwd: folder, encoding: 'utf8' }).stdout;
  return `\n[archive ${files}]\n${listing.split('\n').sort().join('\n')}`;
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  f: (t: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i] as T);
      }
    }),
  );
  return out;
}

describe('kubectl kudo against KUDO 0.19 kubectl-kudo', () => {
  let work: string;
  let kudoBinary: string;
  let packages: string[];
  let outcomes: Outcome[];
  const allowed = readAllowedDifferences().filter((a) => !a.packages.includes('cluster'));

  beforeAll(async () => {
    [kudoBinary] = await Promise.all([
      ensureKudoCli({ onProgress: (line) => process.stderr.write(`${line}\n`) }),
      ensureBuiltCli(),
    ]);
    work = mkdtempSync(join(tmpdir(), 'vs-kudo-cli-'));
    packages = preparePackages(join(work, 'pkgs'));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(work, 'home'),
    };
    mkdirSync(join(work, 'home'));
    const cases = PACKAGE_COMMANDS.flatMap((command) => packages.map((pkg) => ({ command, pkg })));
    let n = 0;
    outcomes = await mapLimited(cases, 3, async ({ command, pkg }) => {
      const outs = ['kudo', 'ours'].map((who) => join(work, 'out', `${n}-${who}`));
      n += 1;
      for (const o of outs) mkdirSync(o, { recursive: true });
      const argv = (out: string): string[] =>
        command.replace('{pkg}', `./${pkg}`).replace('{out}', out).split(' ');
      const cwd = join(work, 'pkgs');
      const [kudo, ours] = await Promise.all([
        run(kudoBinary, argv(outs[0] ?? ''), cwd, env),
        run(process.execPath, [KUBECTL_KUDO, ...argv(outs[1] ?? '')], cwd, env),
      ]);
      const norm = (r: CliResult, out: string): CliResult => ({
        code: r.code,
        stdout: (r.stdout + archiveListing(out)).replaceAll(out, '<out>'),
        stderr: r.stderr.replaceAll(out, '<out>'),
      });
      const k = norm(kudo, outs[0] ?? '');
      const o = norm(ours, outs[1] ?? '');
      const differs: Stream[] = [];
      if (k.stdout !== o.stdout) differs.push('stdout');
      if (k.stderr !== o.stderr) differs.push('stderr');
      if (k.code !== o.code) differs.push('exit');
      const allowedBy = allowed.find(
        (a) =>
          a.command === command &&
          (a.packages.includes('*') || a.packages.includes(pkg)) &&
          differs.every((d) => a.streams.includes(d)),
      );
      return {
        command,
        pkg,
        differs,
        ...(differs.length && allowedBy ? { allowedBy } : {}),
        kudo: k,
        ours: o,
      };
    });
    const table = [
      `| command | ${packages.join(' | ')} |`,
      `|---|${packages.map(() => '---').join('|')}|`,
      ...PACKAGE_COMMANDS.map(
        (command) =>
          `| ${command} | ${packages
            .map((pkg) => {
              const o = outcomes.find((x) => x.command === command && x.pkg === pkg);
              return !o
                ? '?'
                : o.differs.length === 0
                  ? '='
                  : o.allowedBy
                    ? 'doc'
                    : `≠ ${o.differs.join('+')}`;
            })
            .join(' | ')} |`,
      ),
    ];
    const same = outcomes.filter((o) => o.differs.length === 0).length;
    process.stderr.write(
      `${table.join('\n')}\nidentical: ${same}/${outcomes.length}, documented differences: ${
        outcomes.filter((o) => o.allowedBy).length
      }\n`,
    );
  }, 1_800_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('prints what KUDO prints, except the documented differences', () => {
    const unexplained = outcomes
      .filter((o) => o.differs.length > 0 && !o.allowedBy)
      .map((o) => ({
        case: `${o.command.replace('{pkg}', `./${o.pkg}`)}`,
        differs: o.differs,
        kudo: o.kudo,
        ours: o.ours,
      }));
    expect(unexplained).toEqual([]);
  });

  it('uses every documented difference (the table in docs/cli.md has no stale rows)', () => {
    const unused = allowed.filter((a) => !outcomes.some((o) => o.allowedBy === a));
    expect(unused.map((a) => a.command)).toEqual([]);
  });

  it('writes the same files as KUDO for package new and package add maintainer', async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(work, 'home'),
    };
    const steps = [
      ['package', 'new', 'demo'],
      ['package', 'add', 'maintainer', 'Jane Doe', 'jane@example.com'],
      ['package', 'new', 'demo'],
      ['package', 'add', 'maintainer', 'only-a-name'],
    ];
    const runAll = async (who: 'kudo' | 'ours'): Promise<string> => {
      const dir = join(work, `generate-${who}`);
      mkdirSync(dir, { recursive: true });
      const out: string[] = [];
      for (const args of steps) {
        const r =
          who === 'kudo'
            ? await run(kudoBinary, args, dir, env)
            : await run(process.execPath, [KUBECTL_KUDO, ...args], dir, env);
        out.push(`$ ${args.join(' ')}\n${r.stdout}${r.stderr}exit ${r.code}`);
      }
      for (const file of readdirSync(join(dir, 'operator')).sort()) {
        out.push(`--- ${file}\n${readFileSync(join(dir, 'operator', file), 'utf8')}`);
      }
      return out.join('\n');
    };
    const [kudo, ours] = await Promise.all([runAll('kudo'), runAll('ours')]);
    expect(ours).toBe(kudo);
    expect(ours).toContain('name: Jane Doe');
  });

  it('covers every package of ../shared and its broken variants', () => {
    expect(packages.length).toBeGreaterThanOrEqual(14);
    expect(outcomes.length).toBe(PACKAGE_COMMANDS.length * packages.length);
  });
});
