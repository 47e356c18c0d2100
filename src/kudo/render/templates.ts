/**
 * Renders an OperatorVersion's templates into objects: Go text/template with KUDO's functions
 * and `missingkey=error`, then multi-document YAML. Parsed templates are cached per
 * OperatorVersion revision (bounded), so a plan pass does not re-parse them.
 *
 * {@link renderJob} is the whole render of one template as a pure function of a
 * {@link RenderJob} (plain data): the render pool runs it in a worker thread, the inline
 * renderer on the calling thread. Every failure it raises is deterministic — the same job
 * fails the same way — and therefore a {@link RenderError} or a ParameterValueError.
 */
import { parseAllDocuments } from 'yaml';
import { compileTemplate, TemplateError, type Template } from '../../gotemplate/index.ts';
import type { ApplyObject } from '../../kube/index.ts';
import type { OperatorVersion } from '../api/index.ts';
import { parameterFileValues } from '../package/index.ts';
import {
  MAX_YAML_ALIASES,
  YamlProblem,
  convert,
  duplicateKey,
  harden,
  lineAndColumn,
  nestingBound,
} from '../params/index.ts';
import {
  ParameterValueError,
  decodeParameters,
  type ParameterInput,
  type TemplateScalars,
  type TemplateVariables,
} from './variables.ts';
import { namespacedName } from '../../kube/index.ts';
import { parsePlainDocuments } from './plain-yaml.ts';

/**
 * Characters one template may render. Every object must fit etcd's 1.5 MiB anyway; the
 * bound stops a runaway loop from growing a string until the memory limit ends it.
 */
export const MAX_TEMPLATE_OUTPUT_CHARS = 4 * 1024 * 1024;

/** Nesting of rendered objects (Kubernetes objects, CRD schemas included, stay far below). */
export const MAX_OBJECT_DEPTH = 256;

/**
 * What a render produces: Kubernetes objects (the default); one pod without a name (a Pipe
 * task's pod template, named by the engine); or a KudoOperator parameter file — a YAML
 * mapping whose values become Instance parameter strings, rendered without `.PlanName`,
 * `.PhaseName`, `.StepName` and `.Pipes`, as KUDO did.
 */
export type RenderKind = 'objects' | 'pod' | 'parameters';

/** One template to render: plain data, so it can be posted to a worker. */
export interface RenderJob {
  /** Cache key of the parsed template: OperatorVersion revision + template name. */
  readonly key: string;
  readonly template: string;
  readonly text: string;
  readonly parameters: readonly ParameterInput[];
  readonly scalars: TemplateScalars;
  /** `.Pipes`: pipe key → artifact name for the plan being run (empty when absent). */
  readonly pipes?: Readonly<Record<string, string>>;
  /** Default `objects`. */
  readonly output?: RenderKind;
  readonly maxOutputChars: number;
}

/**
 * Several templates rendered with the same variables (one task's resources): one trip to a
 * worker instead of one per template. Each renders exactly as the {@link RenderJob} of its
 * own would (fresh variables each, so one template cannot change what the next one sees).
 */
export interface RenderBatch extends Omit<RenderJob, 'key' | 'template' | 'text'> {
  readonly templates: ReadonlyArray<Pick<RenderJob, 'key' | 'template' | 'text'>>;
}

/** The job of each template of a batch, in order. */
export function jobsOf(batch: RenderBatch): RenderJob[] {
  const { templates, ...shared } = batch;
  return templates.map((t) => ({ ...shared, ...t }));
}

export interface RenderOutput {
  readonly objects: ApplyObject[];
  /** The parameter file's values (output `parameters` only). */
  readonly parameters?: Readonly<Record<string, string>>;
  /** Length of the rendered text (counts against the plan's budget). */
  readonly outputChars: number;
}

/** A template that does not render or does not parse as Kubernetes YAML: never retried. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  constructor(
    readonly template: string,
    readonly line: number | undefined,
    readonly detail: string,
  ) {
    super(
      `template ${template}${line !== undefined ? ` line ${line}` : ''}: ${detail}; fix the template in the OperatorVersion (or the parameter it uses) and schedule the plan again`,
    );
  }
}

/** A task names a template the OperatorVersion does not have. */
export class MissingTemplateError extends Error {
  override readonly name = 'MissingTemplateError';
  constructor(
    readonly template: string,
    readonly operatorVersion: string,
  ) {
    super(
      `template ${template} does not exist in OperatorVersion ${operatorVersion}; add it to spec.templates or remove it from the task`,
    );
  }
}

/** The text of template `name` (own keys only), or MissingTemplateError. */
export function templateText(ov: OperatorVersion, name: string): string {
  const templates: Readonly<Record<string, unknown>> = ov.spec?.templates ?? {};
  const text = Object.hasOwn(templates, name) ? templates[name] : undefined;
  if (typeof text !== 'string') {
    throw new MissingTemplateError(name, namespacedName(ov.metadata));
  }
  return text;
}

/** The cache key of template `name` of this OperatorVersion revision. */
export function templateKey(ov: OperatorVersion, name: string): string {
  const label = namespacedName(ov.metadata);
  return `${ov.metadata.uid ?? label}@${ov.metadata.resourceVersion ?? ''}/${name}`;
}

export class TemplateCache {
  private readonly entries = new Map<string, Template>();
  constructor(private readonly max: number = 512) {}

  get(ov: OperatorVersion, name: string): Template {
    return this.compile(templateKey(ov, name), name, templateText(ov, name));
  }

  /** The parsed template for `key`, parsing `text` on a miss (RenderError if it does not parse). */
  compile(key: string, name: string, text: string): Template {
    let found = this.entries.get(key);
    if (found) {
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    try {
      found = compileTemplate(name, text, { funcs: 'kudo', missingKey: 'error' });
    } catch (err) {
      if (err instanceof TemplateError) throw new RenderError(name, err.line, err.message);
      throw err;
    }
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, found);
    return found;
  }
}

/** Renders one template and parses its documents; empty documents are skipped. */
export function renderObjects(
  cache: TemplateCache,
  ov: OperatorVersion,
  name: string,
  vars: TemplateVariables,
): ApplyObject[] {
  const template = cache.get(ov, name);
  return parseObjects(name, execute(template, name, vars, MAX_TEMPLATE_OUTPUT_CHARS));
}

/**
 * Everything a render does, from plain data: decode the parameters (`decode` may memoise),
 * parse (cached) and execute the template, parse the output. Throws RenderError or
 * ParameterValueError; any other exception (stack or string length exhausted) is turned
 * into a RenderError too, since rendering the same job again fails the same way.
 */
export function renderJob(
  cache: TemplateCache,
  job: RenderJob,
  decode: (raw: unknown, type: 'array' | 'map') => unknown = convert,
): RenderOutput {
  return parseJobOutput(job, executeJob(cache, job, decode));
}

/** The first half of {@link renderJob}: the rendered text, not yet parsed. */
export function executeJob(
  cache: TemplateCache,
  job: RenderJob,
  decode: (raw: unknown, type: 'array' | 'map') => unknown = convert,
): string {
  try {
    const params = decodeParameters(job.parameters, decode);
    const template = cache.compile(job.key, job.template, job.text);
    const pipes = Object.assign(Object.create(null) as Record<string, string>, job.pipes ?? {});
    const vars =
      (job.output ?? 'objects') === 'parameters'
        ? parameterFileVariables(job.scalars, params)
        : { ...job.scalars, Params: params, Pipes: pipes };
    return execute(template, job.template, vars, job.maxOutputChars);
  } catch (err) {
    throw typed(job, err);
  }
}

/** The second half of {@link renderJob}: the rendered text parsed as the job's output kind. */
export function parseJobOutput(job: RenderJob, text: string): RenderOutput {
  try {
    const output = job.output ?? 'objects';
    if (output === 'parameters') {
      return {
        objects: [],
        parameters: parameterFile(job.template, text),
        outputChars: text.length,
      };
    }
    const objects =
      output === 'pod' ? [parsePod(job.template, text)] : parseObjects(job.template, text);
    return { objects, outputChars: text.length };
  } catch (err) {
    throw typed(job, err);
  }
}

function typed(job: RenderJob, err: unknown): Error {
  if (err instanceof RenderError || err instanceof ParameterValueError) return err;
  return new RenderError(job.template, undefined, exhausted(err));
}

/** What a KudoOperator parameter file sees: the parent's names, versions and parameters only. */
function parameterFileVariables(
  scalars: TemplateScalars,
  params: Record<string, unknown>,
): TemplateVariables {
  // Go's map lookup with missingkey=error fails on the absent keys, as in KUDO.
  const vars: Record<string, unknown> = {
    Name: scalars.Name,
    Namespace: scalars.Namespace,
    OperatorName: scalars.OperatorName,
    OperatorVersion: scalars.OperatorVersion,
    AppVersion: scalars.AppVersion,
    Params: params,
  };
  return vars as unknown as TemplateVariables;
}

/** A rendered parameter file: a YAML mapping, values as Instance parameter strings. */
function parameterFile(name: string, text: string): Record<string, string> {
  const values = new Map<string, string>();
  const problems = parameterFileValues(name, text, values);
  if (problems.length > 0) throw new RenderError(name, undefined, problems.join('; '));
  return Object.fromEntries(values);
}

/** A rendered pod template: one YAML document, a map (its name is given by the engine). */
function parsePod(name: string, text: string): ApplyObject {
  const docs = parseDocuments(name, text);
  if (docs.length !== 1) {
    throw new RenderError(
      name,
      undefined,
      `a pipe pod template must render exactly one document (a Pod), it rendered ${docs.length}`,
    );
  }
  return docs[0] as ApplyObject;
}

/** A message for a resource exhausted while rendering (stack, string length, …). */
function exhausted(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/call stack/i.test(message)) return 'rendering exhausted the call stack (nesting too deep)';
  if (/string length/i.test(message))
    return 'rendering produced a string longer than the engine allows';
  return `rendering failed: ${message.slice(0, 300)}`;
}

function execute(
  template: Template,
  name: string,
  vars: TemplateVariables,
  maxOutputChars: number,
): string {
  try {
    return template.execute(vars, { maxOutputLength: maxOutputChars });
  } catch (err) {
    if (err instanceof TemplateError) throw new RenderError(name, err.line, err.message);
    throw err;
  }
}

export function parseObjects(name: string, text: string): ApplyObject[] {
  const out: ApplyObject[] = [];
  for (const obj of parseDocuments(name, text)) {
    if (!obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new RenderError(
        name,
        undefined,
        `a document lacks apiVersion, kind or metadata.name (${obj.kind ?? 'no kind'} ${obj.metadata?.name ?? 'no name'})`,
      );
    }
    out.push(obj);
  }
  return out;
}

/** The non-empty documents of a rendered text, each a YAML map. */
function parseDocuments(name: string, text: string): ApplyObject[] {
  // Most rendered output is plain block YAML: read without the full parser when it is (the
  // fast path gives up on anything else, and then the full parser decides).
  const plain = parsePlainDocuments(text, MAX_OBJECT_DEPTH);
  if (plain !== undefined) return plain;
  return parseDocumentsFully(name, text);
}

/**
 * {@link parseDocuments} with the `yaml` package alone: the reference the fast path is
 * tested against (test/unit/kudo/render/plain-yaml.test.ts).
 */
export function parseDocumentsFully(name: string, text: string): ApplyObject[] {
  const out: ApplyObject[] = [];
  // The YAML parser recurses per nesting level: refuse absurd nesting before it starts.
  if (nestingBound(text, 4 * MAX_OBJECT_DEPTH) > 4 * MAX_OBJECT_DEPTH) {
    throw new RenderError(
      name,
      undefined,
      `rendered output nests deeper than the limit of ${MAX_OBJECT_DEPTH} levels`,
    );
  }
  // YAML 1.1, as Go's sigs.k8s.io/yaml reads it (KUDO): 0777 is octal, yes/no are booleans.
  // Duplicate keys are checked below in one pass (the library's own check is quadratic).
  for (const doc of parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    prettyErrors: false,
  })) {
    const first = doc.errors[0];
    if (first) {
      const line = lineAndColumn(text, first.pos[0]).line;
      throw new RenderError(
        name,
        line,
        `rendered output is not valid YAML: ${first.message.split('\n')[0] ?? ''}`,
      );
    }
    const duplicate = duplicateKey(doc.contents);
    if (duplicate) throw new RenderError(name, undefined, `rendered output ${duplicate}`);
    let value: unknown;
    try {
      value = harden(doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }), MAX_OBJECT_DEPTH);
    } catch (err) {
      throw new RenderError(
        name,
        undefined,
        `rendered output is not valid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`,
      );
    }
    if (value instanceof YamlProblem) {
      throw new RenderError(name, undefined, `rendered output ${value.reason}`);
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new RenderError(name, undefined, 'a document is not a Kubernetes object (a YAML map)');
    }
    out.push(value as ApplyObject);
  }
  return out;
}
