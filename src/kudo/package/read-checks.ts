/**
 * The checks install/upgrade run while reading a package (not the full verifier): every
 * template a task names exists, task kinds are known, a Toggle names its parameter, a Pipe
 * has pipe entries, a KudoOperator parameterFile is a template. Texts are KUDO's.
 */
import type { Task } from '../api/index.ts';
import { PackageReadError } from './errors.ts';
import type { FileTree } from './files.ts';
import type { PackageDefinition } from './model.ts';
import { parsePackage } from './reader.ts';

/** Template names a task reads (resources, Pipe pod, KudoOperator parameter file). */
export function taskTemplates(task: Task): string[] {
  const spec = task.spec ?? {};
  switch (task.kind) {
    case 'Apply':
    case 'Delete':
    case 'Toggle':
      return [...(spec.resources ?? [])];
    case 'Pipe':
      return [spec.pod ?? ''];
    case 'KudoOperator':
      return spec.parameterFile ? [spec.parameterFile] : [];
    default:
      return [];
  }
}

function taskProblems(task: Task, templates: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const spec = task.spec ?? {};
  switch (task.kind) {
    case 'Toggle':
      if (!spec.parameter)
        problems.push(`toggle task ${task.name} does not have parameter specified`);
      break;
    case 'Pipe':
      if ((spec.pipe ?? []).length === 0) {
        problems.push(`task ${task.name} does not have pipe files specified`);
      }
      break;
    case 'Apply':
    case 'Delete':
    case 'KudoOperator':
    case 'Dummy':
      break;
    default:
      problems.push(`unknown task kind ${task.kind}`);
  }
  for (const name of taskTemplates(task)) {
    if (!Object.hasOwn(templates, name))
      problems.push(`task ${task.name} missing template: ${name}`);
  }
  return problems;
}

/** Every read-time problem of `pkg`, in task order. */
export function readTimeProblems(pkg: PackageDefinition): string[] {
  return pkg.operator.tasks.flatMap((task) => taskProblems(task, pkg.templates));
}

/** {@link parsePackage} plus {@link readTimeProblems}: what install and upgrade accept. */
export function loadPackageDefinition(tree: FileTree, source: string): PackageDefinition {
  const pkg = parsePackage(tree, source);
  const problems = readTimeProblems(pkg);
  if (problems.length > 0) {
    throw new PackageReadError(problems.join('\n'), { source, problems, stage: 'resources' });
  }
  return pkg;
}
