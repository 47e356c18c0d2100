/** Plan tasks: Apply, Delete, Toggle, Dummy. */
export { runTask } from './run.ts';
export {
  FatalTaskError,
  TransientTaskError,
  type InventoryRecorder,
  type TaskContext,
  type TaskOutcome,
  type TaskRunner,
} from './types.ts';
