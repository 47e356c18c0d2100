/**
 * Checks an Instance's parameters against its OperatorVersion: value types, enum, required,
 * unknown names, size limits. The JSON schema is built and compiled with ajv once per
 * OperatorVersion revision (uid + resourceVersion) and kept in a bounded cache, because
 * admission runs it on every Instance write.
 *
 * Array and map values are YAML a user typed: decoding them has a cost the user controls,
 * so the webhook decodes them first ({@link ParameterValidator.decode}) and passes the
 * result to {@link ParameterValidator.validate}: small ones inline (up to
 * {@link MAX_INLINE_DECODE_CHARS} per request, microseconds to a few milliseconds under the
 * same nesting and alias limits), larger ones off the event loop with a
 * {@link ParameterDecoder} such as the admission worker. Without decoded values, validate
 * decodes inline (tests, tools).
 *
 * See examples/api/kudo.ts.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { OperatorVersion, Parameter, ParameterValueType } from '../api/index.ts';
import { convert, Unparsable, valueType } from './convert.ts';
import { parameterField, type ParameterProblem } from './errors.ts';
import { MAX_INLINE_DECODE_CHARS, MAX_PARAMETERS_BYTES, excerpt } from './limits.ts';
import { namespacedName } from '../../kube/index.ts';

/** What decoding one array/map value gave: the value, or why it is not one. */
export type DecodeOutcome = { readonly value: unknown } | { readonly problem: string };

/** Decodes an array/map value somewhere bounded (a worker with a deadline). */
export type ParameterDecoder = (
  raw: string,
  type: 'array' | 'map',
  signal?: AbortSignal,
) => Promise<DecodeOutcome>;

/** Decoded array/map values by parameter name (typed value or Unparsable). */
export type DecodedParameters = ReadonlyMap<string, unknown>;

/** The field of problems about the parameters as a whole (their total size). */
export const PARAMETERS_FIELD = 'spec.parameters';

export interface ParameterValidatorOptions {
  /** How many compiled OperatorVersion revisions to keep; the oldest is dropped first. */
  readonly maxCachedOperatorVersions: number;
}

interface Compiled {
  readonly schema: Record<string, unknown>;
  readonly validate: ValidateFunction;
  readonly parameters: ReadonlyMap<string, Parameter>;
  /**
   * Parameter name → the property name ajv sees (`p0`, `p1`, …) and back. Names are package
   * and user input; ajv treats some names specially (it drops `__proto__` from `properties`),
   * so it never sees them.
   */
  readonly keys: ReadonlyMap<string, string>;
  readonly names: ReadonlyMap<string, string>;
  readonly label: string;
}

const JSON_TYPE: Record<ParameterValueType, string> = {
  string: 'string',
  // Integers are checked (int64 range) by convert and carried as canonical decimal text.
  integer: 'string',
  number: 'number',
  boolean: 'boolean',
  array: 'array',
  map: 'object',
};

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown}, … (${names.length} in all)` : shown || '(none)';
}

export class ParameterValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly cache = new Map<string, Compiled>();
  private readonly max: number;
  /**
   * Parsed array/map values by type and text. YAML parsing dominates admission time, and the
   * same values arrive again and again (every update re-sends every parameter). Bounded;
   * cleared when full. Parsed values are only read (by ajv), never handed out.
   */
  private readonly parsed = new Map<string, unknown>();
  private parsedChars = 0;
  private static readonly MAX_PARSED = 2048;
  /** Bound on the memoised text (a map parameter may hold a whole config file). */
  private static readonly MAX_PARSED_CHARS = 2 * 1024 * 1024;

  constructor(options: ParameterValidatorOptions) {
    if (
      !Number.isInteger(options.maxCachedOperatorVersions) ||
      options.maxCachedOperatorVersions < 1
    ) {
      throw new RangeError(
        `ParameterValidator: maxCachedOperatorVersions must be a positive integer, got ${options.maxCachedOperatorVersions}`,
      );
    }
    this.max = options.maxCachedOperatorVersions;
  }

  /** Number of compiled revisions held (for tests and metrics). */
  get cachedCount(): number {
    return this.cache.size;
  }

  /**
   * Problems with `values` under `ov`. With `only`, problems are reported for those parameter
   * names alone (an update is judged on what it changed, not on values stored earlier).
   */
  validate(
    ov: OperatorVersion,
    values: Readonly<Record<string, string>>,
    only?: ReadonlySet<string>,
    decoded?: DecodedParameters,
  ): ParameterProblem[] {
    const compiled = this.compiled(ov);
    const problems: ParameterProblem[] = [];
    // Keys are user input: no prototype, so `__proto__` or `constructor` are plain names.
    const typed = Object.create(null) as Record<string, unknown>;
    const reported = new Set<string>();
    const unknown: ParameterProblem[] = [];
    let bytes = 0;
    for (const [name, raw] of Object.entries(values)) {
      bytes += name.length + (typeof raw === 'string' ? raw.length : 0);
      const parameter = compiled.parameters.get(name);
      const key = compiled.keys.get(name);
      if (!parameter || key === undefined) {
        unknown.push({
          name,
          field: parameterField(name),
          reason: 'FieldValueNotSupported',
          message: `unknown parameter: OperatorVersion ${compiled.label} defines ${listNames([...compiled.parameters.keys()])}`,
        });
        continue;
      }
      const type = valueType(parameter);
      const value = decoded?.has(name) ? decoded.get(name) : this.convert(raw, type);
      if (value instanceof Unparsable) {
        reported.add(name);
        problems.push({
          name,
          field: parameterField(name),
          reason: 'FieldValueInvalid',
          message: `${excerpt(raw)} ${value.reason} (value-type ${type})`,
        });
      } else {
        typed[key] = value;
      }
    }
    problems.push(...unknown);
    if (bytes > MAX_PARAMETERS_BYTES / 3 && totalBytes(values) > MAX_PARAMETERS_BYTES) {
      problems.push({
        name: '',
        field: PARAMETERS_FIELD,
        reason: 'FieldValueInvalid',
        message: `the parameters take ${totalBytes(values)} bytes, more than the limit of ${MAX_PARAMETERS_BYTES} bytes per Instance; keep large configuration in a ConfigMap or Secret`,
      });
    }
    if (!compiled.validate(typed)) {
      for (const error of compiled.validate.errors ?? []) {
        const problem = this.describe(error, compiled, values);
        if (problem && !reported.has(problem.name)) {
          reported.add(problem.name);
          problems.push(problem);
        }
      }
    }
    return only
      ? problems.filter((p) => only.has(p.name) || p.field === PARAMETERS_FIELD)
      : problems;
  }

  /**
   * Decodes the array/map values of `values` (values seen recently come from the memo):
   * inline while they fit in {@link MAX_INLINE_DECODE_CHARS} (the same {@link convert},
   * limits and messages as the worker's), the rest with `decoder`; a decoder failure
   * (deadline, memory) makes the value Unparsable. Synchronous when nothing goes to
   * `decoder` (the common case: no array/map value, or small ones), so a caller that can
   * answer at once does; `signal` is asked for only then, a caller may make it on demand.
   */
  decode(
    ov: OperatorVersion,
    values: Readonly<Record<string, string>>,
    decoder: ParameterDecoder,
    signal?: AbortSignal | (() => AbortSignal),
  ): DecodedParameters | Promise<DecodedParameters> {
    const compiled = this.compiled(ov);
    const out = new Map<string, unknown>();
    const forDecoder: [name: string, raw: string, type: 'array' | 'map', key: string][] = [];
    let inlineBudget = MAX_INLINE_DECODE_CHARS;
    for (const [name, raw] of Object.entries(values)) {
      const parameter = compiled.parameters.get(name);
      const type = parameter ? valueType(parameter) : undefined;
      if ((type !== 'array' && type !== 'map') || typeof raw !== 'string') continue;
      const key = `${type}\u0000${raw}`;
      if (this.parsed.has(key)) {
        out.set(name, this.parsed.get(key));
        continue;
      }
      // Size and type problems need no decoding.
      const cheap = convert(raw, 'string');
      if (cheap instanceof Unparsable) {
        out.set(name, cheap);
        continue;
      }
      if (raw.length <= inlineBudget) {
        // Cheap by construction: at most a few KiB, nesting scanned before parsing, aliases
        // capped — the cost of a worker round trip would exceed the decode's.
        inlineBudget -= raw.length;
        const value = convert(raw, type);
        this.remember(key, raw, value);
        out.set(name, value);
        continue;
      }
      forDecoder.push([name, raw, type, key]);
    }
    if (forDecoder.length === 0) return out;
    return this.decodeRest(
      out,
      forDecoder,
      decoder,
      typeof signal === 'function' ? signal() : signal,
    );
  }

  /** The values {@link decode} leaves to `decoder`, one after the other (bounded by the pool). */
  private async decodeRest(
    out: Map<string, unknown>,
    rest: readonly [name: string, raw: string, type: 'array' | 'map', key: string][],
    decoder: ParameterDecoder,
    signal: AbortSignal | undefined,
  ): Promise<DecodedParameters> {
    for (const [name, raw, type, key] of rest) {
      let value: unknown;
      try {
        const outcome = await decoder(raw, type, signal);
        value = 'problem' in outcome ? new Unparsable(raw, outcome.problem) : outcome.value;
      } catch (err) {
        if (signal?.aborted) throw err;
        value = new Unparsable(
          raw,
          `could not be decoded within the limits (${err instanceof Error ? err.message : String(err)})`,
        );
      }
      this.remember(key, raw, value);
      out.set(name, value);
    }
    return out;
  }

  private convert(raw: string, type: ParameterValueType): unknown {
    if ((type !== 'array' && type !== 'map') || typeof raw !== 'string') return convert(raw, type);
    const key = `${type}\u0000${raw}`;
    if (this.parsed.has(key)) return this.parsed.get(key);
    const value = convert(raw, type);
    this.remember(key, raw, value);
    return value;
  }

  private remember(key: string, raw: string, value: unknown): void {
    if (raw.length > ParameterValidator.MAX_PARSED_CHARS / 16) return; // too big to keep
    if (
      this.parsed.size >= ParameterValidator.MAX_PARSED ||
      this.parsedChars + raw.length > ParameterValidator.MAX_PARSED_CHARS
    ) {
      this.parsed.clear();
      this.parsedChars = 0;
    }
    this.parsed.set(key, value);
    this.parsedChars += raw.length;
  }

  private describe(
    error: ErrorObject,
    compiled: Compiled,
    values: Readonly<Record<string, string>>,
  ): ParameterProblem | undefined {
    const params = error.params as Record<string, unknown>;
    const nameOf = (key: string): string | undefined => compiled.names.get(key);
    switch (error.keyword) {
      case 'required': {
        const name = nameOf(String(params['missingProperty']));
        if (name === undefined) return undefined;
        return {
          name,
          field: parameterField(name),
          reason: 'FieldValueRequired',
          message: `required by OperatorVersion ${compiled.label} and has no default; set a value`,
        };
      }
      case 'enum': {
        const name = nameOf(error.instancePath.slice(1));
        if (name === undefined) return undefined;
        const allowed = compiled.parameters.get(name)?.enum ?? [];
        return {
          name,
          field: parameterField(name),
          reason: 'FieldValueNotSupported',
          message: `${excerpt(own(values, name))} is not allowed; choose one of: ${listNames(allowed.map((v) => excerpt(String(v))))}`,
        };
      }
      default: {
        const name = nameOf(error.instancePath.slice(1));
        if (name === undefined) return undefined;
        return {
          name,
          field: parameterField(name),
          reason: 'FieldValueInvalid',
          message: `${excerpt(own(values, name))} ${error.message ?? 'is invalid'}`,
        };
      }
    }
  }

  private compiled(ov: OperatorVersion): Compiled {
    const { uid, resourceVersion } = ov.metadata;
    // Without uid and resourceVersion (an object not from the API) there is no safe key.
    const key = uid || resourceVersion ? `${uid ?? ''}@${resourceVersion ?? ''}` : undefined;
    if (key === undefined) return this.compile(ov, false);
    const hit = this.cache.get(key);
    if (hit) {
      // Refresh recency: a Map iterates in insertion order, so re-inserting makes it newest.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const compiled = this.compile(ov, true);
    this.cache.set(key, compiled);
    if (this.cache.size > this.max) {
      const [oldestKey, oldest] = this.cache.entries().next().value ?? [];
      if (oldestKey !== undefined && oldest !== undefined) {
        this.cache.delete(oldestKey);
        // ajv keeps every compiled schema too; drop it so eviction frees the memory.
        this.ajv.removeSchema(oldest.schema);
      }
    }
    return compiled;
  }

  private compile(ov: OperatorVersion, keep: boolean): Compiled {
    const parameters = new Map<string, Parameter>();
    const keys = new Map<string, string>();
    const names = new Map<string, string>();
    const properties: Record<string, Record<string, unknown>> = {};
    const required: string[] = [];
    for (const parameter of ov.spec?.parameters ?? []) {
      if (typeof parameter?.name !== 'string' || !parameter.name) continue;
      if (parameters.has(parameter.name)) continue; // the first definition wins
      const key = `p${parameters.size}`;
      parameters.set(parameter.name, parameter);
      keys.set(parameter.name, key);
      names.set(key, parameter.name);
      const type = valueType(parameter);
      const property: Record<string, unknown> = { type: JSON_TYPE[type] };
      if (parameter.enum && parameter.enum.length > 0) {
        property['enum'] = parameter.enum.map((v) => {
          const typed = convert(String(v), type);
          return typed instanceof Unparsable ? String(v) : typed;
        });
      }
      properties[key] = property;
      if (parameter.required && (parameter.default === undefined || parameter.default === null)) {
        required.push(key);
      }
    }
    const schema = { type: 'object', properties, required, additionalProperties: false };
    const validate = this.ajv.compile(schema);
    if (!keep) this.ajv.removeSchema(schema);
    return { schema, validate, parameters, keys, names, label: namespacedName(ov.metadata) };
  }
}

/** UTF-8 bytes of all names and values (strings only; others are refused per value). */
function totalBytes(values: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, raw] of Object.entries(values)) {
    bytes += Buffer.byteLength(name) + (typeof raw === 'string' ? Buffer.byteLength(raw) : 0);
  }
  return bytes;
}

function own(values: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(values, name) ? values[name] : '';
}
