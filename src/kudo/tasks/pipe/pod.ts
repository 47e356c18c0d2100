/**
 * The pipe pod: the package's pod template, checked with KUDO's rules (and a stricter check of
 * file names, which become data keys), then rebuilt as KUDO did — named after the task, its
 * one init container producing the files into an emptyDir, and a `waiter` container that
 * sleeps so the files can be copied out through `pods/exec`.
 */
import { posix } from 'node:path';
import type { ApplyObject } from '../../../kube/index.ts';
import type { PipeFile } from './spec.ts';

export const PIPE_POD_ANNOTATION = 'kudo.dev/pipepod';
export const WAITER_CONTAINER = 'waiter';
/** A pinned tag: `latest` would change under a running manager (--pipe-waiter-image overrides). */
export const DEFAULT_WAITER_IMAGE = 'busybox:1.36';
/** The waiter's shell script: sleeps until the pod is deleted, and exits on SIGTERM. */
export const WAITER_SCRIPT = "trap 'exit 0' TERM; sleep infinity & wait";
/** nobody: the waiter only sleeps and reads the files (tar, stat), which needs no root. */
export const WAITER_USER = 65534;

/**
 * The waiter's securityContext, which Pod Security "restricted" accepts: not root, no
 * privilege escalation, no capabilities, the runtime's default seccomp profile.
 */
export const WAITER_SECURITY_CONTEXT: Readonly<Record<string, unknown>> = Object.freeze({
  runAsNonRoot: true,
  runAsUser: WAITER_USER,
  runAsGroup: WAITER_USER,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
});

/** Data keys of ConfigMaps and Secrets. */
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Why the rendered object cannot be a pipe pod (wrong kind): KUDO's ResourceUnmarshalError. */
export class PipePodKindError extends Error {
  override readonly name = 'PipePodKindError';
}

/** A pipe pod that breaks the rules: KUDO's ResourceValidationError. */
export class PipePodValidationError extends Error {
  override readonly name = 'PipePodValidationError';
}

/** What validation found: the emptyDir volume and where the init container mounts it. */
export interface PipeMount {
  readonly volume: string;
  readonly mountPath: string;
}

/**
 * Checks a rendered pod against KUDO's rules: apiVersion v1 kind Pod; no containers; exactly
 * one init container; restartPolicy absent or OnFailure; exactly one emptyDir volume, mounted
 * by the init container at M; every pipe file strictly below M, not hidden, with a base name
 * that is a valid data key.
 */
export function validatePipePod(pod: ApplyObject, files: readonly PipeFile[]): PipeMount {
  if (pod.apiVersion !== 'v1' || pod.kind !== 'Pod') {
    throw new PipePodKindError(
      `must be a Pod (apiVersion: v1, kind: Pod), not ${pod.kind ?? 'an object without kind'} of apiVersion ${pod.apiVersion ?? '(none)'}`,
    );
  }
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  if (list(spec['containers']).length > 0) {
    throw new PipePodValidationError(
      'must not have containers: its init container produces the files and Planwright adds the container that waits for them to be copied',
    );
  }
  const inits = list(spec['initContainers']);
  if (inits.length !== 1) {
    throw new PipePodValidationError(
      `must have exactly one init container (the one that writes the files), it has ${inits.length}`,
    );
  }
  const restart = spec['restartPolicy'];
  if (restart !== undefined && restart !== null && restart !== 'OnFailure') {
    throw new PipePodValidationError(
      `restartPolicy must be OnFailure or absent, not ${JSON.stringify(restart)}`,
    );
  }
  const emptyDirs = list(spec['volumes']).filter((v) => isObject(v) && v['emptyDir'] !== undefined);
  if (emptyDirs.length !== 1) {
    throw new PipePodValidationError(
      `must have exactly one emptyDir volume (where the files are written), it has ${emptyDirs.length}`,
    );
  }
  const volume = (emptyDirs[0] as Json)['name'];
  const init = isObject(inits[0]) ? inits[0] : {};
  const mount = list(init['volumeMounts']).find((m) => isObject(m) && m['name'] === volume);
  const mountPath = isObject(mount) ? mount['mountPath'] : undefined;
  if (typeof volume !== 'string' || typeof mountPath !== 'string' || mountPath === '') {
    throw new PipePodValidationError(
      `its init container must mount the emptyDir volume ${typeof volume === 'string' ? volume : ''}`.trim(),
    );
  }
  for (const file of files) checkPipePath(file.path, mountPath);
  return { volume, mountPath };
}

function checkPipePath(path: string, mountPath: string): void {
  if (!posix.isAbsolute(path)) {
    throw new PipePodValidationError(
      `pipe file ${path} must be an absolute path below the emptyDir mount ${mountPath}`,
    );
  }
  const relative = posix.relative(posix.normalize(mountPath), posix.normalize(path)) || '.';
  if (relative.startsWith('.')) {
    throw new PipePodValidationError(
      `pipe file ${path} must lie below the emptyDir mount ${mountPath} and not be hidden (its path relative to the mount, ${relative}, starts with ".")`,
    );
  }
  const base = posix.basename(path);
  if (!DATA_KEY.test(base)) {
    throw new PipePodValidationError(
      `pipe file ${path}: its name ${JSON.stringify(base)} becomes a data key and may only contain letters, digits, '-', '_' and '.'`,
    );
  }
}

/**
 * The pod to create from the user's pod: named `name`, annotated as a pipe pod, restarting
 * on failure, its containers replaced by the waiter (mounting the same emptyDir, with the
 * restricted securityContext); the pod's seccomp profile RuntimeDefault unless the package
 * set one; everything else kept (volumes, the init container, service account, node
 * selection …). The init container is the package's: it passes "restricted" only if the
 * package wrote it so.
 */
export function buildPipePod(
  pod: ApplyObject,
  name: string,
  mount: PipeMount,
  waiterImage: string,
): ApplyObject {
  const meta = isObject(pod.metadata) ? pod.metadata : {};
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return {
    ...pod,
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      name,
      annotations: { ...(meta.annotations ?? {}), [PIPE_POD_ANNOTATION]: 'true' },
    },
    spec: {
      ...spec,
      restartPolicy: 'OnFailure',
      securityContext: podSecurityContext(spec['securityContext']),
      containers: [
        {
          name: WAITER_CONTAINER,
          image: waiterImage,
          command: ['/bin/sh', '-c'],
          // As PID 1 a plain `sleep` ignores SIGTERM, so deleting the pod once its files are
          // copied would wait out the whole grace period; the trap ends it at once.
          args: [WAITER_SCRIPT],
          volumeMounts: [{ name: mount.volume, mountPath: mount.mountPath }],
          securityContext: structuredClone(WAITER_SECURITY_CONTEXT),
        },
      ],
    },
  };
}

/** The package's pod securityContext, with seccomp RuntimeDefault when it names no profile. */
function podSecurityContext(given: unknown): Json {
  const context = isObject(given) ? { ...given } : {};
  if (context['seccompProfile'] === undefined)
    context['seccompProfile'] = { type: 'RuntimeDefault' };
  return context;
}
