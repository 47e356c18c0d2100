/** Messages between the render pool and its worker threads (plain data: structured clone). */
import type { OperatorVersion } from '../api/index.ts';
import type { VerifyResult } from '../verify/index.ts';
import type { DecodeOutcome } from '../params/index.ts';
import type { RenderBatch, RenderJob, RenderOutput } from '../render/index.ts';

export type WorkerRequest =
  | { readonly id: number; readonly kind: 'render'; readonly job: RenderJob }
  | { readonly id: number; readonly kind: 'renderAll'; readonly batch: RenderBatch }
  | {
      readonly id: number;
      readonly kind: 'decode';
      readonly raw: string;
      readonly type: 'array' | 'map';
    }
  | {
      readonly id: number;
      readonly kind: 'verify';
      readonly operatorVersion: OperatorVersion;
      readonly namespaceManifest?: string;
    };

/** A failure of the job itself (deterministic), rebuilt as the typed error on the main thread. */
export type WorkerFailure =
  | {
      readonly kind: 'render';
      readonly template: string;
      readonly line?: number;
      readonly detail: string;
    }
  | { readonly kind: 'parameter'; readonly parameter: string; readonly detail: string };

export type WorkerReply =
  | { readonly id: number; readonly kind: 'render'; readonly output: RenderOutput }
  | { readonly id: number; readonly kind: 'renderAll'; readonly outputs: RenderOutput[] }
  | { readonly id: number; readonly kind: 'decode'; readonly outcome: DecodeOutcome }
  | { readonly id: number; readonly kind: 'verify'; readonly result: VerifyResult }
  | { readonly id: number; readonly kind: 'failed'; readonly failure: WorkerFailure };

/** Posted once by a worker when its modules are loaded and it takes jobs. */
export const READY = 'planwright-render-worker-ready';
