/** What a task needs from the engine, and what it reports back. */
import type { ApplyObject, ServerSideApply } from '../../kube/index.ts';
import type { Instance, OperatorVersion } from '../api/index.ts';
import type { InventoryEntry } from '../inventory/index.ts';
import type { RenderBudget, Renderer, StepCoordinates } from '../render/index.ts';
import type { PodExec } from './pipe/exec.ts';
import type { TenancyPolicy } from './tenancy.ts';

/** Records objects in the Instance's inventory (written to status before they are applied). */
export interface RecordOptions {
  /**
   * The objects are found without the inventory if the manager dies before writing it: the
   * caller applies them with a controller owner reference to the Instance (home cluster,
   * Instance's namespace, not `gc: keep`), so the garbage collector deletes them with the
   * Instance, and a later pass finds them again after a restart (the same run renders them;
   * a new run discovers them by owner, see engine/unrecorded.ts). Their record rides on the
   * pass's closing status write instead of a write of its own before applying.
   */
  readonly foundWithoutInventory?: boolean;
}

export interface InventoryRecorder {
  /**
   * Records entries; written before it resolves unless `foundWithoutInventory`. Entries the
   * garbage collector does not remove with the Instance get the cleanup finalizer onto the
   * Instance first (inventory/collected.ts).
   */
  record(entries: readonly InventoryEntry[], options?: RecordOptions): Promise<void>;
  /** Whether the entry is already recorded (an object we applied before). */
  has(entry: InventoryEntry): boolean;
  /** The recorded entry of the same object (with its digest), if any. */
  recorded(entry: InventoryEntry): InventoryEntry | undefined;
  forget(entries: readonly InventoryEntry[]): void;
  /** Every recorded entry (prune looks for the ones a task no longer renders). */
  list(): InventoryEntry[];
  /** Writes what `forget` changed. */
  save(): Promise<void>;
}

/**
 * Applied objects as the controller's watch caches hold them, so a pass that waits for an
 * object to become healthy reads it from memory instead of GETting it, and is woken by its
 * watch event instead of a timer. Home cluster only; remote targets GET as before.
 */
export interface ObjectReader {
  /**
   * The object as a synced watch cache holds it, when the cache can vouch for it: undefined
   * when the kind is not watched, the cache has not synced or not seen the object, or its copy
   * is older than our last write of it (metadata.generation). Undefined means: ask the server.
   */
  read(desired: ApplyObject, signal: AbortSignal): Promise<ApplyObject | undefined>;
  /** What our write of an object returned: cached copies of an older generation are stale. */
  wrote(result: ApplyObject): void;
  /** Whether a change of `obj` wakes Instance `instance` (namespace/name) by a watch event. */
  wakes(obj: ApplyObject, instance: string): boolean;
}

/** What happened to an object the engine tracks for drift. */
export interface AppliedObject {
  readonly entry: InventoryEntry;
  /** What was sent (policy annotations stripped). */
  readonly desired: ApplyObject;
  /** The live object after the apply (or the unchanged live object). */
  readonly live: ApplyObject;
}

/**
 * What every task of every pass uses the same way, made once by the controller and handed to
 * the tasks unchanged (the engine's context is one: engine/context.ts).
 */
export interface TaskServices {
  /** Where templates render (the render pool in the controller). */
  readonly templates: Renderer;
  /** Image of the pipe pods' waiter container (default DEFAULT_WAITER_IMAGE, pinned; air-gapped clusters: a mirror). */
  readonly pipeWaiterImage?: string;
  /** Runs commands in pods (Pipe tasks); default: `pods/exec` over WebSocket. */
  readonly podExec?: PodExec;
  /** What the Instance may make the manager do beyond its namespace; default KUDO's posture. */
  readonly tenancy?: TenancyPolicy;
}

/** One task's view: the shared services, and where it stands (Instance, plan, step, target). */
export interface TaskContext {
  readonly services: TaskServices;
  readonly instance: Instance;
  readonly operatorVersion: OperatorVersion;
  readonly at: StepCoordinates;
  /** Effective parameter values (raw, not decoded; null-prototype). */
  readonly params: Readonly<Record<string, unknown>>;
  /** `.Pipes` of the plan being run: pipe key → artifact name (computed before it runs). */
  readonly pipes: Readonly<Record<string, string>>;
  /** Talks to the cluster the plan applies to (the Instance's target). */
  readonly ssa: ServerSideApply;
  /** The target cluster's key; undefined for the home cluster. */
  readonly cluster?: string;
  /**
   * The ServiceAccount `ssa` impersonates (`ServiceAccount <ns>/<name> (<why>)`); undefined:
   * the manager's own rights. A refusal (403) then names it and is FATAL_ERROR.
   */
  readonly actingAs?: string;
  /** Told about every object applied or found unchanged (drift baselines). */
  readonly onApplied?: (applied: AppliedObject) => void;
  /** Watch-cache reads of applied objects (home cluster); absent: every look is a GET. */
  readonly objects?: ObjectReader;
  /** Rendered output left for this plan pass, shared by its tasks. */
  readonly renderBudget?: RenderBudget;
  readonly inventory: InventoryRecorder;
  readonly signal: AbortSignal;
  /**
   * A Warning Event on the Instance (`reason`, `message`). The engine records each distinct
   * message once per plan run, however often a pass repeats it.
   */
  readonly warn?: (reason: string, message: string) => void;
}

export interface TaskOutcome {
  readonly done: boolean;
  /** Why it is not done yet (shown in the step's message). */
  readonly message?: string;
  /**
   * Not done, and every object it waits for is watched: a watch event wakes the Instance when
   * one changes, so the engine sets no timer to look again.
   */
  readonly wakesOnChange?: boolean;
}

export interface TaskErrorOptions {
  readonly cause?: unknown;
  /** The object the failure is about (`Kind namespace/name`), when there is one. */
  readonly object?: string;
}

/**
 * A task's failure, keeping its parts: the task, the object (if any) and the detail on its
 * own, so callers that combine failures use `detail` instead of cutting up `message`.
 */
export abstract class TaskError extends Error {
  readonly object: string | undefined;
  constructor(
    readonly task: string,
    readonly detail: string,
    options?: TaskErrorOptions,
  ) {
    super(`task ${task}: ${detail}`, options?.cause === undefined ? {} : { cause: options.cause });
    this.object = options?.object;
  }
}

/** A failure that retrying cannot fix: the step becomes FATAL_ERROR. */
export class FatalTaskError extends TaskError {
  override readonly name = 'FatalTaskError';
}

/** A failure that may pass (API errors, a kind not served yet): the step becomes ERROR and is retried. */
export class TransientTaskError extends TaskError {
  override readonly name = 'TransientTaskError';
}
