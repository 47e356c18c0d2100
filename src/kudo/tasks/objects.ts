/**
 * Rendering a task's resources into decorated objects of kinds the server serves, ordered for
 * applying. An object written for an API version the server no longer serves is converted to
 * the served one the way the API server did (kube/removed-apis), and fields the server's
 * schema does not know are dropped (kube/unknown-fields.ts), each with a Warning Event once
 * per plan run; a kind no version serves is a fatal error naming template, kind and what to do.
 */
import {
  describeObject,
  type ApplyObject,
  resolveKind,
  type KindResolution,
} from '../../kube/index.ts';
import {
  ANNOTATION_DEPENDENCIES_HASH,
  dependenciesHash,
  dependencyKeyOf,
  type DigestSources,
} from './dependencies-hash/index.ts';
import {
  MAX_TEMPLATE_OUTPUT_CHARS,
  MissingTemplateError,
  ParameterValueError,
  RenderBudgetExceededError,
  RenderError,
  decorate,
  operatorName,
  podTemplateOf,
  type Decoration,
  parameterInputs,
  templateKey,
  templateScalars,
  templateText,
  type RenderBatch,
  type RenderJob,
  type RenderKind,
  type RenderOutput,
} from '../render/index.ts';
import { RenderLimitError } from '../pool/index.ts';
import { resourcesOf } from './resources.ts';
import { KUDO_TENANCY, placeObject } from './tenancy.ts';
import { FatalTaskError, TransientTaskError, type TaskContext } from './types.ts';

/** A rendered object and the template it came from (messages name the template). */
export interface Rendered {
  readonly template: string;
  readonly object: ApplyObject;
}

/** The render job of one template of the task's OperatorVersion. */
function renderJobOf(template: string, ctx: TaskContext, output: RenderKind): RenderJob {
  const ov = ctx.operatorVersion;
  return {
    key: templateKey(ov, template),
    template,
    text: templateText(ov, template),
    ...sharedInputs(ctx, output),
  };
}

/** What every template of a task renders with. */
function sharedInputs(ctx: TaskContext, output: RenderKind): Omit<RenderBatch, 'templates'> {
  const ov = ctx.operatorVersion;
  return {
    parameters: parameterInputs(ov, ctx.params),
    scalars: templateScalars(ctx.instance, ov, ctx.at),
    pipes: ctx.pipes,
    output,
    maxOutputChars: MAX_TEMPLATE_OUTPUT_CHARS,
  };
}

/**
 * A render's failure as the task reports it. Every failure of the render itself is
 * deterministic — a template or parameter problem, or a limit (deadline, memory, output
 * size) — and so a FatalTaskError; only the pool being stopped or busy passes through to be
 * retried.
 */
function renderFailure(task: string, err: unknown): unknown {
  if (
    err instanceof RenderError ||
    err instanceof MissingTemplateError ||
    err instanceof ParameterValueError ||
    err instanceof RenderLimitError ||
    err instanceof RenderBudgetExceededError
  ) {
    return new FatalTaskError(task, err.message, { cause: err });
  }
  return err;
}

/** One render through ctx.templates, counted against the pass's budget. */
async function renderOne(
  task: string,
  template: string,
  ctx: TaskContext,
  output: RenderKind,
): Promise<RenderOutput> {
  try {
    const rendered = await ctx.services.templates.render(
      renderJobOf(template, ctx, output),
      ctx.signal,
    );
    ctx.renderBudget?.spend(template, rendered.outputChars);
    return rendered;
  } catch (err) {
    throw renderFailure(task, err);
  }
}

/**
 * Renders (off the event loop, through ctx.templates) without resolving kinds: all the
 * task's templates in one batch (one trip to a render worker), each counted against the
 * pass's budget in order.
 */
export async function renderTask(
  task: string,
  resources: readonly string[],
  ctx: TaskContext,
  output: RenderKind = 'objects',
): Promise<Rendered[]> {
  const out: Rendered[] = [];
  try {
    const ov = ctx.operatorVersion;
    const batch: RenderBatch = {
      ...sharedInputs(ctx, output),
      templates: resources.map((template) => ({
        key: templateKey(ov, template),
        template,
        text: templateText(ov, template),
      })),
    };
    const outputs = await ctx.services.templates.renderAll(batch, ctx.signal);
    resources.forEach((template, i) => {
      const rendered = outputs[i];
      if (!rendered) throw new Error(`renderer returned no output for template ${template}`);
      ctx.renderBudget?.spend(template, rendered.outputChars);
      for (const object of rendered.objects) out.push({ template, object });
    });
  } catch (err) {
    throw renderFailure(task, err);
  }
  return out;
}

/** A KudoOperator parameter file: its values as Instance parameter strings. */
export async function renderParameterFile(
  task: string,
  template: string,
  ctx: TaskContext,
): Promise<Record<string, string>> {
  const rendered = await renderOne(task, template, ctx, 'parameters');
  return { ...(rendered.parameters ?? {}) };
}

function kindOf(obj: ApplyObject): string {
  return `${obj.kind ?? '?'} (apiVersion ${obj.apiVersion ?? '?'})`;
}

/** Why a kind that is not served is fatal, and what to do about it. */
function unservedMessage(r: Rendered, served: readonly string[]): string {
  const where = served.length
    ? `this cluster serves ${r.object.kind ?? '?'} only as ${served.join(', ')}`
    : 'no API version of this cluster serves it and no CustomResourceDefinition declares it';
  return `template ${r.template}: ${describeObject(r.object)} is of kind ${kindOf(r.object)}, which ${where}; change the template's apiVersion to a served one, or install the CustomResourceDefinition that provides the kind (in an earlier step)`;
}

/**
 * Kinds of one task no version of the cluster serves (or not yet), at most: each costs
 * discovery requests (remembered a while, kube/gvk.ts), and no real package needs this many.
 */
export const MAX_UNKNOWN_KINDS_PER_TASK = 16;

function tooManyUnknownKinds(task: string, unknown: ReadonlySet<string>): void {
  if (unknown.size < MAX_UNKNOWN_KINDS_PER_TASK) return;
  throw new FatalTaskError(
    task,
    `renders objects of ${unknown.size} kinds this cluster does not serve (${[...unknown].slice(0, 5).join(', ')}, …); at most ${MAX_UNKNOWN_KINDS_PER_TASK} are looked up per task. Fix the templates' apiVersion and kind, or install the CustomResourceDefinitions first`,
  );
}

export interface DecorateOptions {
  /** Deleting: objects whose kind nothing serves cannot exist and are skipped. */
  readonly missingKindIsGone?: boolean;
  /** Collects kinds a CRD declares but the server does not serve yet, instead of throwing. */
  readonly pending?: TransientTaskError[];
}

/**
 * Resolves each object's kind, places it (tenancy.ts) and decorates it (namespace, labels,
 * owner), converting removed API versions. A kind a CRD declares but the server does not serve yet is a transient error
 * (`pending`, reported after everything else was applied when given); a kind nothing serves
 * is fatal. With `missingKindIsGone` (deleting), objects of either kind are skipped: they
 * cannot exist. When applying, pod templates that mount ConfigMaps/Secrets get their
 * `kudo.dev/dependencies-hash` (see dependencies-hash/).
 */
export async function decorateAll(
  task: string,
  rendered: readonly Rendered[],
  ctx: TaskContext,
  options: DecorateOptions = {},
): Promise<ApplyObject[]> {
  const { missingKindIsGone = false, pending } = options;
  const resolved: Array<{ r: Rendered; decoration: Decoration; resolution: KindResolution }> = [];
  const unknown = new Set<string>();
  for (const r of rendered) {
    const { apiVersion, kind } = r.object;
    if (!apiVersion || !kind) {
      throw new FatalTaskError(task, `template ${r.template}: an object lacks apiVersion or kind`);
    }
    tooManyUnknownKinds(task, unknown);
    const resolution: KindResolution = await resolveKind(
      ctx.ssa.mapper,
      // Discovery's client: CRDs are read with the manager's rights, whoever the plan acts as.
      ctx.ssa.mapper.client,
      apiVersion,
      kind,
      ctx.signal,
    );
    if (resolution.state === 'pending' || resolution.state === 'unserved') {
      unknown.add(kindOf(r.object));
      if (missingKindIsGone) continue;
      if (resolution.state === 'unserved') {
        throw new FatalTaskError(task, unservedMessage(r, resolution.served));
      }
      const problem = new TransientTaskError(
        task,
        `template ${r.template}: ${describeObject(r.object)}: kind ${kindOf(r.object)} is declared by CustomResourceDefinition ${resolution.crd} (${resolution.detail}) but not served yet; retrying until it is`,
        { object: describeObject(r.object) },
      );
      if (!pending) throw problem;
      pending.push(problem);
      continue;
    }
    const placed = place(task, r, resolution.mapping.namespaced, ctx);
    const decoration: Decoration = {
      instance: ctx.instance,
      operatorName: operatorName(ctx.instance, ctx.operatorVersion),
      operatorVersion: ctx.operatorVersion.spec?.version ?? '',
      at: ctx.at,
      namespaced: resolution.mapping.namespaced,
    };
    resolved.push({ r: placed, decoration, resolution });
  }
  const decorated = resolved.map(({ r, decoration }) => decorate(r.object, decoration));
  if (!missingKindIsGone) await addDependencyHashes(resolved, decorated, ctx);
  const out: Rendered[] = [];
  resolved.forEach(({ r, resolution }, i) => {
    const object = decorated[i];
    if (!object || resolution.state === 'pending' || resolution.state === 'unserved') return;
    // An owner reference names an object of the home cluster: in a target cluster its
    // garbage collector would find no such owner and delete the object at once.
    if (ctx.cluster !== undefined && object.metadata?.['ownerReferences'] !== undefined) {
      const meta = { ...object.metadata };
      delete meta['ownerReferences'];
      object.metadata = meta;
    }
    if (resolution.state === 'served') {
      out.push({ template: r.template, object });
      return;
    }
    const { removed } = resolution;
    ctx.warn?.(
      'ConvertedRemovedAPI',
      `template ${r.template}: ${describeObject(object)} uses ${removed.from} ${removed.kind}, which Kubernetes stopped serving in ${removed.removedIn}; applied it as ${removed.to} (converted as the API server did). Update the package to ${removed.to}`,
    );
    out.push({ template: r.template, object: removed.convert(object) });
  });
  if (missingKindIsGone) return out.map((o) => o.object);
  return Promise.all(out.map((o) => withoutUnknownFields(o, ctx)));
}

/**
 * The object without the fields the target cluster's schema does not know (server-side apply
 * refuses them; older packages carry fields Kubernetes removed), with a Warning Event naming
 * them. Without a schema to ask, the object as it is.
 */
async function withoutUnknownFields(r: Rendered, ctx: TaskContext): Promise<ApplyObject> {
  const found = await ctx.ssa.mapper.schemas.withoutUnknownFields(r.object, ctx.signal);
  if (!found || found.dropped.length === 0) return r.object;
  ctx.warn?.(
    'DroppedUnknownFields',
    `template ${r.template}: ${describeObject(r.object)}: this cluster's schema of ${found.schema} has no field ${found.dropped.join(', ')}; applied without ${found.dropped.length === 1 ? 'it' : 'them'}. Remove ${found.dropped.length === 1 ? 'it' : 'them'} from the package`,
  );
  return found.object;
}

/**
 * The rendered object in the namespace the tenancy policy puts it (tenancy.ts): kept, moved
 * into the Instance's namespace with a Warning Event, or refused as a FatalTaskError.
 */
function place(task: string, r: Rendered, namespaced: boolean, ctx: TaskContext): Rendered {
  const placement = placeObject(ctx.services.tenancy ?? KUDO_TENANCY, {
    template: r.template,
    object: r.object,
    namespaced,
    instanceNamespace: ctx.instance.metadata.namespace ?? '',
  });
  if (placement.kind === 'keep') return r;
  if (placement.kind === 'refuse') {
    throw new FatalTaskError(task, placement.message, { object: describeObject(r.object) });
  }
  ctx.warn?.('NamespaceOverridden', placement.warning);
  return {
    template: r.template,
    object: { ...r.object, metadata: { ...r.object.metadata, namespace: placement.namespace } },
  };
}

/**
 * Decorates again, with their dependencies hash, the objects whose pod template mounts
 * ConfigMaps or Secrets; the digests come from the same task's objects (as decorated), the
 * inventory, or the live objects.
 */
async function addDependencyHashes(
  resolved: ReadonlyArray<{ r: Rendered; decoration: Decoration }>,
  decorated: ApplyObject[],
  ctx: TaskContext,
): Promise<void> {
  const inTask = new Map<string, ApplyObject>();
  for (const obj of decorated) {
    const key = dependencyKeyOf(obj);
    if (key !== undefined) inTask.set(key, obj);
  }
  const sources: DigestSources = {
    inTask,
    recorded: (d) =>
      ctx.inventory.recorded({
        group: '',
        version: 'v1',
        kind: d.kind,
        namespace: d.namespace,
        name: d.name,
      })?.digest,
    live: (d, signal) =>
      resourcesOf(ctx).get(
        { apiVersion: 'v1', kind: d.kind, metadata: { name: d.name, namespace: d.namespace } },
        signal,
      ),
  };
  await Promise.all(
    decorated.map(async (obj, i) => {
      const template = podTemplateOf(obj);
      const entry = resolved[i];
      if (!template || !entry) return;
      const hash = await dependenciesHash(
        template,
        obj.metadata?.namespace ?? '',
        sources,
        ctx.signal,
      );
      if (hash === undefined) return;
      decorated[i] = decorate(entry.r.object, {
        ...entry.decoration,
        podTemplateAnnotations: () => ({ [ANNOTATION_DEPENDENCIES_HASH]: hash }),
      });
    }),
  );
}
