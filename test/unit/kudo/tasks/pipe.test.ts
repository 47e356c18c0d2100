// The Pipe task's pure parts: the task spec (KUDO's build checks), the pod template rules and
// the pod Planwright builds from it, the pod's state in words (init container reasons), env
// files, the Secret/ConfigMap layout, pulling the one regular file out of a tar stream, and
// exit codes from exec statuses.
import { describe, expect, it } from '@jest/globals';
import { pack } from 'tar-stream';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import { pipeArtifact } from '../../../../src/kudo/tasks/pipe/artifacts.ts';
import { EnvFileError, parseEnvFile } from '../../../../src/kudo/tasks/pipe/env-file.ts';
import { exitCodeOf } from '../../../../src/kudo/tasks/pipe/exec.ts';
import {
  DEFAULT_WAITER_IMAGE,
  buildPipePod,
  PipePodKindError,
  PipePodValidationError,
  validatePipePod,
} from '../../../../src/kudo/tasks/pipe/pod.ts';
import { pipePodState } from '../../../../src/kudo/tasks/pipe/pod-status.ts';
import { pipeTaskSpec, type PipeFile } from '../../../../src/kudo/tasks/pipe/spec.ts';
import { extractFile, TarExtractError } from '../../../../src/kudo/tasks/pipe/tar.ts';
import { FatalTaskError } from '../../../../src/kudo/tasks/types.ts';

const file = (path: string, extra: Partial<PipeFile> = {}): PipeFile => ({
  path,
  format: 'file',
  kind: 'ConfigMap',
  key: 'k',
  ...extra,
});

/** cowsay's pipe pod template, rendered. */
function cowsayPod(): ApplyObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { labels: { team: 'x' } },
    spec: {
      serviceAccountName: 'gen',
      nodeSelector: { disk: 'ssd' },
      volumes: [{ name: 'shared-data', emptyDir: {} }],
      initContainers: [
        {
          name: 'init',
          image: 'busybox',
          command: ['/bin/sh', '-c'],
          args: ['wget -O /tmp/index.html http://example'],
          volumeMounts: [{ name: 'shared-data', mountPath: '/tmp' }],
        },
      ],
    },
  };
}

function withSpec(patch: Record<string, unknown>): ApplyObject {
  const pod = cowsayPod();
  return { ...pod, spec: { ...(pod['spec'] as object), ...patch } };
}

describe('Pipe task spec', () => {
  it('takes files and env files with their kinds and keys', () => {
    const spec = pipeTaskSpec({
      name: 'gen',
      kind: 'Pipe',
      spec: {
        pod: 'pod.yaml',
        pipe: [
          { file: '/tmp/a.html', kind: 'ConfigMap', key: 'a' },
          { envFile: '/tmp/env', kind: 'Secret', key: 'b_2' },
        ],
      },
    });
    expect(spec).toEqual({
      pod: 'pod.yaml',
      files: [
        { path: '/tmp/a.html', format: 'file', kind: 'ConfigMap', key: 'a' },
        { path: '/tmp/env', format: 'envFile', kind: 'Secret', key: 'b_2' },
      ],
    });
  });

  it.each([
    [{ pod: 'p' }, 'pipe task has an empty pipe files list'],
    [
      { pod: 'p', pipe: [{ file: '/a', envFile: '/b', kind: 'Secret', key: 'k' }] },
      "either 'file' or 'envFile'",
    ],
    [{ pod: 'p', pipe: [{ file: '/a', kind: 'Deployment', key: 'k' }] }, 'invalid pipe kind'],
    [{ pod: 'p', pipe: [{ file: '/a', kind: 'Secret', key: 'a.b' }] }, 'invalid pipe key'],
    [{ pipe: [{ file: '/a', kind: 'Secret', key: 'k' }] }, 'pipe task has no pod template'],
  ])('refuses %j with KUDO’s message', (spec, message) => {
    expect(() => pipeTaskSpec({ name: 'gen', kind: 'Pipe', spec })).toThrow(FatalTaskError);
    expect(() => pipeTaskSpec({ name: 'gen', kind: 'Pipe', spec })).toThrow(message);
  });
});

describe('the pipe pod', () => {
  it('accepts cowsay’s template and finds the emptyDir mount', () => {
    expect(validatePipePod(cowsayPod(), [file('/tmp/index.html')])).toEqual({
      volume: 'shared-data',
      mountPath: '/tmp',
    });
  });

  it.each([
    [{ ...cowsayPod(), kind: 'Deployment' }, PipePodKindError, 'must be a Pod'],
    [{ ...cowsayPod(), apiVersion: 'apps/v1' }, PipePodKindError, 'must be a Pod'],
    [withSpec({ containers: [{ name: 'c' }] }), PipePodValidationError, 'must not have containers'],
    [withSpec({ initContainers: [] }), PipePodValidationError, 'exactly one init container'],
    [
      withSpec({ initContainers: [{ name: 'a' }, { name: 'b' }] }),
      PipePodValidationError,
      'it has 2',
    ],
    [
      withSpec({ restartPolicy: 'Always' }),
      PipePodValidationError,
      'restartPolicy must be OnFailure',
    ],
    [withSpec({ volumes: [] }), PipePodValidationError, 'exactly one emptyDir volume'],
    [
      withSpec({
        volumes: [
          { name: 'a', emptyDir: {} },
          { name: 'b', emptyDir: {} },
        ],
      }),
      PipePodValidationError,
      'it has 2',
    ],
    [
      withSpec({ volumes: [{ name: 'other', emptyDir: {} }] }),
      PipePodValidationError,
      'must mount the emptyDir volume other',
    ],
  ])('refuses a pod that breaks a rule (%#)', (pod, type, message) => {
    expect(() => validatePipePod(pod, [file('/tmp/index.html')])).toThrow(type);
    expect(() => validatePipePod(pod, [file('/tmp/index.html')])).toThrow(message);
  });

  it.each([
    ['/tmp', 'starts with "."'],
    ['/tmp/', 'starts with "."'],
    ['/etc/passwd', 'starts with "."'],
    ['/tmp/../etc/x', 'starts with "."'],
    ['/tmp/.env', 'starts with "."'],
    ['tmp/index.html', 'must be an absolute path'],
    ['/tmp/index html', 'may only contain letters'],
    ['/tmp/ünïcode', 'may only contain letters'],
  ])('refuses pipe file %s', (path, message) => {
    expect(() => validatePipePod(cowsayPod(), [file(path)])).toThrow(message);
  });

  it('accepts files deeper below the mount, hidden folders excepted', () => {
    expect(() => validatePipePod(cowsayPod(), [file('/tmp/a/b/c.txt')])).not.toThrow();
    expect(() => validatePipePod(cowsayPod(), [file('/tmp/a/.b/c.txt')])).not.toThrow();
  });

  it('is rebuilt with its name, the annotation, OnFailure and the waiter; the rest is kept', () => {
    const mount = { volume: 'shared-data', mountPath: '/tmp' };
    const pod = buildPipePod(cowsayPod(), 'ci.deploy.main.gen.task.pipepod', mount, 'mirror/bb:1');
    expect(pod.metadata).toEqual({
      name: 'ci.deploy.main.gen.task.pipepod',
      labels: { team: 'x' },
      annotations: { 'kudo.dev/pipepod': 'true' },
    });
    const spec = pod['spec'] as Record<string, unknown>;
    expect(spec['restartPolicy']).toBe('OnFailure');
    expect(spec['containers']).toEqual([
      {
        name: 'waiter',
        image: 'mirror/bb:1',
        command: ['/bin/sh', '-c'],
        args: ["trap 'exit 0' TERM; sleep infinity & wait"],
        volumeMounts: [{ name: 'shared-data', mountPath: '/tmp' }],
        // Pod Security "restricted" for the container Planwright adds.
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 65534,
          runAsGroup: 65534,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
      },
    ]);
    expect(spec['securityContext']).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
    expect(DEFAULT_WAITER_IMAGE).toMatch(/^busybox:\d+\.\d+/);
    expect(spec['serviceAccountName']).toBe('gen');
    expect(spec['nodeSelector']).toEqual({ disk: 'ssd' });
    expect(spec['initContainers']).toEqual(
      (cowsayPod()['spec'] as Record<string, unknown>)['initContainers'],
    );
  });
});

describe('the pipe pod’s state', () => {
  const pod = (
    status: Record<string, unknown>,
    meta: Record<string, unknown> = {},
  ): ApplyObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', ...meta },
    status,
  });

  it('is ready when Running and Ready', () => {
    expect(
      pipePodState(
        pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }),
        'bb',
      ),
    ).toEqual({ state: 'ready' });
  });

  it('names the init container’s state and last termination while it does not finish', () => {
    const state = pipePodState(
      pod({
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'init',
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
            lastState: { terminated: { reason: 'Error', exitCode: 1 } },
          },
        ],
        containerStatuses: [
          { name: 'waiter', ready: false, state: { waiting: { reason: 'PodInitializing' } } },
        ],
      }),
      'bb',
    );
    expect(state).toEqual({
      state: 'waiting',
      message:
        'pipe pod Pod ns/p is Pending and not Ready: init container init is waiting: CrashLoopBackOff: back-off 40s (last run: Error, exit code 1), 3 restarts; container waiter is waiting: PodInitializing',
    });
  });

  it('points at the waiter image setting when its image cannot be pulled', () => {
    const state = pipePodState(
      pod({
        phase: 'Pending',
        containerStatuses: [
          { name: 'waiter', ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } },
        ],
      }),
      'busybox',
    );
    expect(state.state === 'waiting' && state.message).toContain(
      'the waiter image is busybox; set another with the manager',
    );
  });

  it('says when it is not scheduled, being deleted, or failed', () => {
    expect(
      pipePodState(
        pod({
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/3 nodes',
            },
          ],
        }),
        'bb',
      ),
    ).toEqual({
      state: 'waiting',
      message: 'pipe pod Pod ns/p is not scheduled: Unschedulable: 0/3 nodes',
    });
    expect(pipePodState(pod({}, { deletionTimestamp: 'now' }), 'bb').state).toBe('waiting');
    expect(pipePodState(pod({ phase: 'Failed', reason: 'Evicted' }), 'bb')).toMatchObject({
      state: 'failed',
      message: expect.stringContaining('ended Failed: Evicted') as unknown,
    });
  });
});

describe('env files', () => {
  const parse = (text: string | Buffer): Record<string, string> =>
    Object.fromEntries(parseEnvFile(Buffer.isBuffer(text) ? text : Buffer.from(text), '/tmp/env'));

  it('reads KEY=VALUE lines as kubectl does: BOM, indentation, comments, CRLF, verbatim values', () => {
    expect(
      parse('\ufeffA=1\n  B= spaced \n\n# comment\n\tC="quoted"=x\r\nD=\nE.f-g=h\nA=2\n'),
    ).toEqual({ A: '2', B: ' spaced ', C: '"quoted"=x', D: '', 'E.f-g': 'h' });
  });

  it('keeps a variable named __proto__ as a key', () => {
    expect(Object.keys(parse('__proto__=x\n'))).toEqual(['__proto__']);
  });

  it.each([
    ['NOEQUALS\n', 'line 1 has no "="'],
    ['1A=x\n', 'line 1: "1A" is not a valid variable name'],
    ['A=1\nB C=2\n', 'line 2: "B C" is not a valid variable name'],
    ['..=x\n', 'not a valid variable name'],
  ])('refuses %j', (text, message) => {
    expect(() => parse(text)).toThrow(EnvFileError);
    expect(() => parse(text)).toThrow(message);
  });

  it('refuses invalid UTF-8', () => {
    expect(() => parse(Buffer.from([0x41, 0x3d, 0xff, 0x0a]))).toThrow('not valid UTF-8');
  });
});

describe('artifacts', () => {
  const bytes = Buffer.from([0x3c, 0x68, 0x31, 0x3e, 0xff, 0x00]);

  it('a file is one key, its base name: binaryData in a ConfigMap, data in an Opaque Secret', () => {
    expect(pipeArtifact(file('/tmp/index.html'), 'n', bytes)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'n' },
      binaryData: { 'index.html': bytes.toString('base64') },
    });
    expect(pipeArtifact(file('/tmp/a/cert.pem', { kind: 'Secret' }), 'n', bytes)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'n' },
      type: 'Opaque',
      data: { 'cert.pem': bytes.toString('base64') },
    });
  });

  it('an env file is one key per variable: data in a ConfigMap, base64 data in a Secret', () => {
    const env = Buffer.from('USER=admin\nPASS=s3cr3t=\n');
    expect(pipeArtifact(file('/tmp/env', { format: 'envFile' }), 'n', env)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'n' },
      data: { USER: 'admin', PASS: 's3cr3t=' },
    });
    expect(pipeArtifact(file('/tmp/env', { format: 'envFile', kind: 'Secret' }), 'n', env)).toEqual(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'n' },
        type: 'Opaque',
        data: {
          USER: Buffer.from('admin').toString('base64'),
          PASS: Buffer.from('s3cr3t=').toString('base64'),
        },
      },
    );
  });
});

describe('the copied tar stream', () => {
  async function tar(
    entries: Array<{
      name: string;
      type?: 'file' | 'directory' | 'symlink';
      content?: string;
      linkname?: string;
    }>,
  ): Promise<Buffer> {
    const p = pack();
    for (const e of entries) {
      p.entry(
        { name: e.name, type: e.type ?? 'file', ...(e.linkname ? { linkname: e.linkname } : {}) },
        e.content ?? '',
      );
    }
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  it('keeps only the regular file at the path (tar drops the leading "/")', async () => {
    const stream = await tar([
      { name: 'tmp/', type: 'directory' },
      { name: 'tmp/other', content: 'no' },
      { name: 'tmp/index.html', content: '<h1>moo</h1>' },
    ]);
    expect((await extractFile(stream, '/tmp/index.html', 100)).toString()).toBe('<h1>moo</h1>');
    expect((await extractFile(stream, '/tmp//./index.html', 100)).toString()).toBe('<h1>moo</h1>');
  });

  it('refuses a symlink in place of the file, a missing file, an oversized one and garbage', async () => {
    const link = await tar([{ name: 'tmp/index.html', type: 'symlink', linkname: '/etc/shadow' }]);
    await expect(extractFile(link, '/tmp/index.html', 100)).rejects.toThrow(
      'is not a regular file (it is a symlink)',
    );
    const other = await tar([{ name: 'tmp/other', content: 'x' }]);
    await expect(extractFile(other, '/tmp/index.html', 100)).rejects.toThrow('did not contain it');
    const big = await tar([{ name: 'tmp/index.html', content: 'x'.repeat(101) }]);
    await expect(extractFile(big, '/tmp/index.html', 100)).rejects.toThrow(
      '101 bytes, more than 100',
    );
    await expect(
      extractFile(Buffer.from('not a tar stream at all'), '/tmp/x', 100),
    ).rejects.toThrow(TarExtractError);
  });
});

describe('exit codes of pods/exec', () => {
  it('reads success, a kubelet’s NonZeroExitCode and an unwrapped Go exit status', () => {
    expect(exitCodeOf({ status: 'Success' })).toBe(0);
    expect(
      exitCodeOf({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '2' }] },
      }),
    ).toBe(2);
    expect(
      exitCodeOf({
        status: 'Failure',
        reason: 'InternalError',
        message: 'error executing command in container: cmd wait: stat /x: exit status 1',
      }),
    ).toBe(1);
  });

  it('treats other failures as no exit code (the command did not run or report)', () => {
    expect(
      exitCodeOf({ status: 'Failure', reason: 'InternalError', message: 'container not found' }),
    ).toBeUndefined();
    expect(exitCodeOf({ status: 'Failure', reason: 'NonZeroExitCode' })).toBeUndefined();
  });
});
