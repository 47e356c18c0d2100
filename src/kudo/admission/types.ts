/** Input and output of the Instance admission decision (a pure function of these). */
import type { JsonPatchOperation, StatusCause } from '../../server/index.ts';
import type { RunningPlan, Instance, OperatorVersion } from '../api/index.ts';
import type { DecodedParameters, ParameterValidator } from '../params/index.ts';

export interface AdmissionUser {
  readonly username?: string;
  readonly groups?: readonly string[];
}

export interface DecisionInput {
  readonly operation: 'CREATE' | 'UPDATE';
  /** The Instance as it would be stored. */
  readonly instance: Instance;
  /** The stored Instance (UPDATE only). Its status is authoritative: spec writes cannot change status. */
  readonly oldInstance?: Instance;
  /** The OperatorVersion `instance` refers to; undefined when it does not exist. */
  readonly operatorVersion: OperatorVersion | undefined;
  /** On UPDATE, the OperatorVersion `oldInstance` refers to (the same object unless upgrading). */
  readonly oldOperatorVersion?: OperatorVersion | undefined;
  readonly user: AdmissionUser;
  readonly dryRun: boolean;
  /** The array/map values of `instance` decoded for `operatorVersion` (else decoded inline). */
  readonly decoded?: DecodedParameters;
}

export interface DecisionDeps {
  readonly validator: ParameterValidator;
  /** A fresh uid for a scheduled run (crypto.randomUUID in production). */
  readonly newUid: () => string;
  readonly now: () => Date;
  /** Usernames of the Planwright controller: the only ones allowed to schedule `cleanup`. */
  readonly controllerUsers: ReadonlySet<string>;
}

/** What a change schedules, for logs and metrics. */
export interface Scheduled {
  readonly planName: string;
  readonly uid: string;
  readonly reason: 'create' | 'upgrade' | 'parameters' | 'direct' | 'cleanup';
}

export type Decision =
  | {
      readonly kind: 'allow';
      readonly patch: readonly JsonPatchOperation[];
      readonly warnings: readonly string[];
      readonly scheduled?: Scheduled;
    }
  | {
      readonly kind: 'deny';
      /** The whole sentence: what changed, why not now, what to do. */
      readonly message: string;
      readonly causes: readonly StatusCause[];
      readonly warnings: readonly string[];
    };

/** What an UPDATE changes, gathered once for the rule modules. */
export interface UpdateFacts {
  readonly instance: Instance;
  readonly old: Instance;
  readonly changed: readonly string[];
  readonly upgrade: boolean;
  /** A direct plan request: planName or uid differs from the stored one. '' = clearing. */
  readonly request: { readonly planName: string } | undefined;
  readonly running: RunningPlan | undefined;
}
