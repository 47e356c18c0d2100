/**
 * The Dockerfile, checked without a daemon (no image is ever built on this machine):
 * - `dockerfileProblems`: dockerfile-utils' validator (the one behind VS Code's Docker
 *   language support) with every optional rule as an error, plus the practices hadolint
 *   would flag that matter here (hadolint itself is not installable from npm, the Go proxy or
 *   Debian 12): pinned base images, `npm ci` from the lockfile, exec-form ENTRYPOINT, absolute
 *   WORKDIR, a numeric non-root USER matching the Deployment's runAsUser, the port the
 *   Deployment uses, nothing excluded by .dockerignore copied from the context;
 * - `imageDrift`: how the daemonless build (`npm run image:build`, whose image the e2e tests
 *   run as pods) differs from the Dockerfile's final stage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { PLANWRIGHT_IMAGE, type ImageCopy, type ImageStage } from '../../src/cli/image.ts';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

const ROOT = repositoryRoot();
export const DOCKERFILE = join(ROOT, 'Dockerfile');

/** The build stage's RUN lines the daemonless build (src/cli/image.ts) reproduces; anything else must be taught to it. */
const BUILD_RUNS = ['npm ci --no-audit --no-fund', 'npm run build'];

export type FinalStage = ImageStage;

export interface DeploymentFacts {
  readonly runAsUser: number;
  readonly containerPort: number;
}

interface Stage {
  readonly name: string | null;
  readonly image: string;
  readonly instructions: Instruction[];
}

function stages(text: string): Stage[] {
  const out: Array<{ name: string | null; image: string; instructions: Instruction[] }> = [];
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const args = instruction.getArguments().map((a) => a.getValue());
      const as = args.findIndex((a) => a.toUpperCase() === 'AS');
      out.push({
        image: args.find((a) => !a.startsWith('--')) ?? '',
        name: as >= 0 ? (args[as + 1] ?? null) : null,
        instructions: [],
      });
    } else {
      out.at(-1)?.instructions.push(instruction);
    }
  }
  return out;
}

/** COPY's --from stage (dockerfile-ast keeps flags out of the arguments). */
function fromFlag(instruction: Instruction): string | undefined {
  return instruction instanceof Copy
    ? (instruction.getFromFlag()?.getValue() ?? undefined)
    : undefined;
}

/** The JSON array of an exec-form instruction, or undefined for the shell form. */
function execForm(instruction: Instruction): string[] | undefined {
  const raw = (instruction.getRawArgumentsContent() ?? '').trim();
  if (!raw.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The final stage as data; throws naming an instruction the daemonless build cannot reproduce. */
export function finalStage(text: string): FinalStage {
  const last = stages(text).at(-1);
  if (!last) throw new Error('the Dockerfile has no FROM');
  let workdir = '/';
  const env: Record<string, string> = {};
  const copies: ImageCopy[] = [];
  let user = '';
  let entrypoint: string[] = [];
  const expose: string[] = [];
  for (const instruction of last.instructions) {
    const args = instruction.getArguments().map((a) => a.getValue());
    switch (instruction.getKeyword()) {
      case 'WORKDIR':
        workdir = args[0] ?? '';
        break;
      case 'ENV':
        for (let i = 0; i < args.length; i++) {
          const [name, ...value] = (args[i] ?? '').split('=');
          if (value.length > 0) env[name ?? ''] = value.join('=');
          else env[name ?? ''] = args[++i] ?? '';
        }
        break;
      case 'COPY': {
        const from = fromFlag(instruction);
        const paths = args;
        copies.push({
          ...(from ? { from } : {}),
          sources: paths.slice(0, -1),
          target: paths.at(-1) ?? '',
        });
        break;
      }
      case 'USER':
        user = args[0] ?? '';
        break;
      case 'ENTRYPOINT':
        entrypoint = execForm(instruction) ?? [];
        break;
      case 'EXPOSE':
        expose.push(...args);
        break;
      default:
        throw new Error(
          `the final stage's ${instruction.getKeyword()} is not reproduced by the daemonless build (src/cli/image.ts): teach it what it does`,
        );
    }
  }
  return { workdir, env, copies, user, entrypoint, expose };
}

/** Every rule of dockerfile-utils that is optional, as an error. */
const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

/** The problems of a Dockerfile's text (empty: none), each naming the line and the fix. */
export function dockerfileProblems(
  text: string,
  deployment: DeploymentFacts,
  dockerignore: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  for (const d of validate(text, STRICT)) {
    problems.push(
      `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
    );
  }
  const all = stages(text);
  const names = new Set(all.map((s) => s.name).filter((n): n is string => n !== null));
  for (const stage of all) {
    if (names.has(stage.image)) continue;
    const [, tag] = /^[^@]*?(?::([^/:@]+))?(?:@.+)?$/.exec(stage.image) ?? [];
    if (!stage.image.includes('@') && (!tag || tag === 'latest')) {
      problems.push(`FROM ${stage.image}: pin the base image to a version tag (or a digest)`);
    }
    for (const instruction of stage.instructions) {
      const line = instruction.getRange().start.line + 1;
      const keyword = instruction.getKeyword();
      const content = (instruction.getArgumentsContent() ?? '').replace(/\s+/g, ' ').trim();
      if (keyword === 'RUN' && /\bnpm (install|i)\b/.test(content)) {
        problems.push(`line ${line}: RUN ${content}: use npm ci (exactly the lockfile)`);
      }
      if (keyword === 'WORKDIR' && !content.startsWith('/')) {
        problems.push(`line ${line}: WORKDIR ${content}: use an absolute path`);
      }
      if ((keyword === 'ENTRYPOINT' || keyword === 'CMD') && !execForm(instruction)) {
        problems.push(`line ${line}: ${keyword} in shell form: use the JSON (exec) form`);
      }
      if (keyword === 'COPY' || keyword === 'ADD') {
        const args = instruction.getArguments().map((a) => a.getValue());
        if (keyword === 'ADD') problems.push(`line ${line}: ADD: use COPY`);
        if (fromFlag(instruction) === undefined) {
          for (const source of args.slice(0, -1)) {
            if (dockerignore.includes(source.replace(/\/$/, ''))) {
              problems.push(`line ${line}: COPY ${source}: excluded by .dockerignore`);
            }
          }
        }
      }
    }
  }
  const final = all.at(-1);
  if (final) {
    const users = final.instructions.filter((i) => i.getKeyword() === 'USER');
    const user = users.at(-1)?.getArgumentsContent()?.trim() ?? '';
    const uid = user.split(':')[0] ?? '';
    if (!/^\d+$/.test(uid)) {
      problems.push(
        `USER ${user || '(none)'}: the final stage must set a numeric user (runAsNonRoot checks the image's uid)`,
      );
    } else if (Number(uid) === 0) {
      problems.push('USER 0: the final stage must not run as root');
    } else if (Number(uid) !== deployment.runAsUser) {
      problems.push(
        `USER ${uid}: the Deployment runs as ${deployment.runAsUser}; use the same uid in both`,
      );
    }
    const expose = final.instructions
      .filter((i) => i.getKeyword() === 'EXPOSE')
      .flatMap((i) => i.getArguments().map((a) => a.getValue()));
    if (!expose.includes(String(deployment.containerPort))) {
      problems.push(
        `EXPOSE ${expose.join(' ') || '(none)'}: the Deployment's webhook port is ${deployment.containerPort}`,
      );
    }
    const build = all.find((s) => s.name !== null && s !== final);
    const runs = (build?.instructions ?? [])
      .filter((i) => i.getKeyword() === 'RUN')
      .map((i) => (i.getArgumentsContent() ?? '').replace(/\s+/g, ' ').trim());
    if (JSON.stringify(runs) !== JSON.stringify(BUILD_RUNS)) {
      problems.push(
        `the build stage runs ${JSON.stringify(runs)}; test/support/dockerfile.ts reproduces ${JSON.stringify(BUILD_RUNS)} — change both together`,
      );
    }
  }
  return problems;
}

/** .dockerignore's patterns (comments and blank lines dropped). */
export function dockerignorePatterns(): string[] {
  const file = join(ROOT, '.dockerignore');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim().replace(/\/$/, ''))
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * How the daemonless build (src/cli/image.ts, `npm run image:build`) differs from the
 * Dockerfile's final stage; empty when they agree.
 */
export function imageDrift(text: string, built: ImageStage = PLANWRIGHT_IMAGE): string[] {
  const stage = finalStage(text);
  const drift: string[] = [];
  const same = (what: string, dockerfile: unknown, build: unknown): void => {
    if (JSON.stringify(dockerfile) !== JSON.stringify(build)) {
      drift.push(
        `${what}: the Dockerfile has ${JSON.stringify(dockerfile)}, src/cli/image.ts builds ${JSON.stringify(build)} — change both together`,
      );
    }
  };
  same('WORKDIR', stage.workdir, built.workdir);
  same('USER', stage.user, built.user);
  same('ENTRYPOINT', stage.entrypoint, built.entrypoint);
  same('EXPOSE', stage.expose, built.expose);
  const sorted = (env: Readonly<Record<string, string>>): Array<[string, string]> =>
    Object.entries(env).sort(([a], [b]) => a.localeCompare(b));
  same('ENV', sorted(stage.env), sorted(built.env));
  const copies = (list: readonly ImageCopy[]): string[] =>
    list.map((c) => `${c.from ? `--from=${c.from} ` : ''}${c.sources.join(' ')} ${c.target}`);
  same('COPY', copies(stage.copies), copies(built.copies));
  return drift;
}
