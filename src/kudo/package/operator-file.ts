/** Decodes operator.yaml into {@link OperatorFile} with KUDO's field names and shapes. */
import type { Maintainer, Phase, PipeSpec, Plan, Step, Task, TaskSpec } from '../api/index.ts';
import { PACKAGE_API_VERSION, type OperatorFile } from './model.ts';
import { NodeReader, parsePackageYaml } from './yaml-nodes.ts';

function maintainer(r: NodeReader, node: unknown, path: string): Maintainer {
  const out: Maintainer = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'name' || key === 'email') {
      const text = r.string(value, field);
      if (text !== undefined) out[key] = text;
    }
  }
  return out;
}

function pipe(r: NodeReader, node: unknown, path: string): PipeSpec {
  const out: PipeSpec = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'file' || key === 'envFile' || key === 'kind' || key === 'key') {
      const text = r.string(value, field);
      if (text !== undefined) out[key] = text;
    }
  }
  return out;
}

const SPEC_STRINGS = [
  'parameter',
  'pod',
  'package',
  'instanceName',
  'appVersion',
  'operatorVersion',
  'parameterFile',
] as const;
const SPEC_BOOLS = ['wantErr', 'fatal', 'done'] as const;

function taskSpec(r: NodeReader, node: unknown, path: string): TaskSpec {
  const out: TaskSpec = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if ((SPEC_STRINGS as readonly string[]).includes(key)) {
      const text = r.string(value, field);
      if (text !== undefined) out[key as (typeof SPEC_STRINGS)[number]] = text;
    } else if ((SPEC_BOOLS as readonly string[]).includes(key)) {
      const flag = r.bool(value, field);
      if (flag !== undefined) out[key as (typeof SPEC_BOOLS)[number]] = flag;
    } else if (key === 'resources') {
      const list = r.stringList(value, field);
      if (list !== undefined) out.resources = list;
    } else if (key === 'pipe') {
      const list = r.seq(value, field);
      if (list !== undefined) out.pipe = list.map((p, i) => pipe(r, p, `${field}[${i}]`));
    }
  }
  return out;
}

function task(r: NodeReader, node: unknown, path: string): Task {
  const out: Task = { name: '', kind: '', spec: {} };
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'name') out.name = r.string(value, field) ?? '';
    else if (key === 'kind') out.kind = r.string(value, field) ?? '';
    else if (key === 'spec') out.spec = taskSpec(r, value, field);
  }
  return out;
}

function step(r: NodeReader, node: unknown, path: string): Step {
  const out: Step = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'name') {
      const text = r.string(value, field);
      if (text !== undefined) out.name = text;
    } else if (key === 'tasks') {
      const list = r.stringList(value, field);
      if (list !== undefined) out.tasks = list;
    }
  }
  return out;
}

function phase(r: NodeReader, node: unknown, path: string): Phase {
  const out: Phase = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'name' || key === 'strategy') {
      const text = r.string(value, field);
      if (text !== undefined) out[key] = text;
    } else if (key === 'steps') {
      const list = r.seq(value, field);
      if (list !== undefined) out.steps = list.map((s, i) => step(r, s, `${field}[${i}]`));
    }
  }
  return out;
}

function plan(r: NodeReader, node: unknown, path: string): Plan {
  const out: Plan = {};
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'strategy') {
      const text = r.string(value, field);
      if (text !== undefined) out.strategy = text;
    } else if (key === 'phases') {
      const list = r.seq(value, field);
      if (list !== undefined) out.phases = list.map((p, i) => phase(r, p, `${field}[${i}]`));
    }
  }
  return out;
}

const TOP_STRINGS = [
  'apiVersion',
  'name',
  'description',
  'operatorVersion',
  'appVersion',
  'kudoVersion',
  'kubernetesVersion',
  'url',
  'namespaceManifest',
] as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Throws YamlShapeError or a syntax Error; the reader adds the file context. */
export function decodeOperatorFile(text: string): OperatorFile {
  const r = new NodeReader(parsePackageYaml(text));
  const out: Mutable<OperatorFile> = {
    apiVersion: '',
    name: '',
    operatorVersion: '',
    maintainers: [],
    tasks: [],
    plans: {},
  };
  const entries = r.map(r.root, '');
  if (entries === undefined) throw new Error('the file is empty');
  for (const [key, value, field] of entries) {
    if ((TOP_STRINGS as readonly string[]).includes(key)) {
      const text = r.string(value, field);
      if (text !== undefined) out[key as (typeof TOP_STRINGS)[number]] = text;
    } else if (key === 'maintainers') {
      out.maintainers = (r.seq(value, field) ?? []).map((m, i) =>
        maintainer(r, m, `${field}[${i}]`),
      );
    } else if (key === 'tasks') {
      out.tasks = (r.seq(value, field) ?? []).map((t, i) => task(r, t, `${field}[${i}]`));
    } else if (key === 'plans') {
      const plans = new Map<string, Plan>();
      for (const [name, p, planField] of r.map(value, field) ?? []) {
        plans.set(name, plan(r, p, planField));
      }
      out.plans = Object.fromEntries(plans);
    }
  }
  if (out.apiVersion === '') out.apiVersion = PACKAGE_API_VERSION;
  return out;
}
