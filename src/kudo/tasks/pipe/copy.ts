/**
 * Copying one pipe file out of the waiter container, as KUDO did: `stat -c %s <path>` for
 * its size (over the limit: refused before anything is transferred), then `tar cf - <path>`
 * streamed back and unpacked in memory, keeping only the regular file at that path. A
 * command that exits non-zero (the file is missing, tar fails) or a file over the limit is a
 * {@link PipeFileError}, which retrying cannot fix; connection problems pass through as
 * ExecConnectionError.
 */
import { ExecOutputLimitError, type PodExec } from './exec.ts';
import { extractFile, TarExtractError } from './tar.ts';

/** The largest pipe file: 1 MiB, as in KUDO (a ConfigMap/Secret must fit etcd anyway). */
export const MAX_PIPE_FILE_BYTES = 1024 * 1024;
/** tar headers, padding and end blocks (long-name headers included) on top of the file. */
const TAR_OVERHEAD_BYTES = 64 * 1024;
const EXEC_TIMEOUT_MS = 60_000;

export class PipeFileError extends Error {
  override readonly name = 'PipeFileError';
}

export interface PipePodRef {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

function where(ref: PipePodRef): string {
  return `pod ${ref.namespace}/${ref.pod} (container ${ref.container})`;
}

function stderrNote(stderr: string): string {
  const text = stderr.trim();
  return text === '' ? '' : `: ${text}`;
}

export async function copyPipeFile(
  exec: PodExec,
  ref: PipePodRef,
  path: string,
  signal: AbortSignal,
): Promise<Buffer> {
  const base = { ...ref, timeoutMs: EXEC_TIMEOUT_MS, signal };
  const stat = await exec.run({ ...base, command: ['stat', '-c', '%s', path], maxStdoutBytes: 64 });
  if (stat.exitCode !== 0) {
    throw new PipeFileError(
      `pipe file ${path} could not be read in ${where(ref)}: \`stat -c %s ${path}\` exited with code ${stat.exitCode}${stderrNote(stat.stderr)}; does the init container write it there?`,
    );
  }
  const size = Number(stat.stdout.toString('utf8').trim());
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new PipeFileError(
      `pipe file ${path} in ${where(ref)}: \`stat -c %s\` printed ${JSON.stringify(stat.stdout.toString('utf8').slice(0, 40))}, not a size; the waiter image must provide a POSIX stat`,
    );
  }
  if (size > MAX_PIPE_FILE_BYTES) {
    throw new PipeFileError(
      `pipe file ${path} size ${size} exceeds maximum file size of ${MAX_PIPE_FILE_BYTES} bytes (1 MiB) in ${where(ref)}; make the init container write a smaller file`,
    );
  }
  let tar;
  try {
    tar = await exec.run({
      ...base,
      command: ['tar', 'cf', '-', path],
      maxStdoutBytes: MAX_PIPE_FILE_BYTES + TAR_OVERHEAD_BYTES,
    });
  } catch (err) {
    if (err instanceof ExecOutputLimitError) {
      throw new PipeFileError(
        `pipe file ${path} in ${where(ref)} grew beyond ${MAX_PIPE_FILE_BYTES} bytes while it was copied; the init container must finish writing it before it exits`,
      );
    }
    throw err;
  }
  if (tar.exitCode !== 0) {
    throw new PipeFileError(
      `pipe file ${path} could not be copied from ${where(ref)}: \`tar cf - ${path}\` exited with code ${tar.exitCode}${stderrNote(tar.stderr)}`,
    );
  }
  try {
    return await extractFile(tar.stdout, path, MAX_PIPE_FILE_BYTES);
  } catch (err) {
    if (err instanceof TarExtractError) {
      throw new PipeFileError(`pipe file ${path} from ${where(ref)}: ${err.message}`);
    }
    throw err;
  }
}
