/** The Pipe task: files produced by a pod, copied out through pods/exec into Secrets/ConfigMaps. */
export { runPipe, pipeCoordinates } from './run.ts';
export { DEFAULT_WAITER_IMAGE, PIPE_POD_ANNOTATION, WAITER_CONTAINER } from './pod.ts';
export { MAX_PIPE_FILE_BYTES } from './copy.ts';
export {
  ExecConnectionError,
  ExecOutputLimitError,
  WebSocketPodExec,
  type ExecRequest,
  type ExecResult,
  type PodExec,
} from './exec.ts';
