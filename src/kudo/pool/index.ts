/** Rendering and parameter decoding off the event loop: a bounded pool of worker processes. */
export { RenderPool, RenderWorkerStartError, type RenderPoolOptions } from './pool.ts';
export {
  RenderLimitError,
  RenderPoolBusyError,
  RenderPoolStoppedError,
  type RenderLimit,
} from './errors.ts';
export { RoutingRenderer, type RoutingRendererOptions } from './routing.ts';
export { defaultRenderWorkers, poolRunnable, renderPools, type RenderSettings } from './pools.ts';
