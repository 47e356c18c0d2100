// Denials stay readable: malformed input gets a 4xx, never a handler exception (a 500) — a
// lone UTF-16 surrogate in a name once made encodeURIComponent throw "URI malformed" — and a
// denial of a request built to be large lists a bounded number of causes, each clipped, and
// says how many more there were.
import { describe, expect, it } from '@jest/globals';
import { type Level, pino } from 'pino';
import {
  CachedKudoUsage,
  CachedOperatorVersionSource,
  LiveOperatorVersionSource,
  instanceMutator,
  instanceValidator,
  operatorValidator,
} from '../../../../src/kudo/admission/index.ts';
import type { KubeClient } from '../../../../src/kube/index.ts';
import { ParameterValidator } from '../../../../src/kudo/params/index.ts';
import {
  ADMISSION_BOUNDS,
  boundStatus,
  toAdmissionResponse,
  type AdmissionRequest,
  type AdmissionResult,
} from '../../../../src/server/index.ts';
import { ov } from '../fixtures.ts';

const silent = pino({ level: 'silent' });
const context = {
  signal: new AbortController().signal,
  dryRun: false,
  logger: silent,
  isLevelEnabled: (level: Level): boolean => silent.isLevelEnabled(level),
};

/** A client that records requests and answers 404, as the API server does for a missing object. */
function client(): KubeClient & { paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    request: (options: { path: string }) => {
      paths.push(options.path);
      return Promise.reject(Object.assign(new Error('not found'), { statusCode: 404 }));
    },
  } as unknown as KubeClient & { paths: string[] };
}

function instanceRequest(namespace: string, ovName: string): AdmissionRequest {
  return {
    uid: 'r1',
    kind: { group: 'kudo.dev', version: 'v1beta1', kind: 'Instance' },
    resource: { group: 'kudo.dev', version: 'v1beta1', resource: 'instances' },
    name: 'i',
    namespace,
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: [] },
    object: {
      metadata: { name: 'i', namespace },
      spec: { operatorVersion: { name: ovName } },
    },
    oldObject: null,
    dryRun: false,
  };
}

function liveSource(c: KubeClient): CachedOperatorVersionSource {
  return new CachedOperatorVersionSource({
    cache: { get: () => undefined },
    live: new LiveOperatorVersionSource({ client: c, timeoutMs: 1000 }),
  });
}

function code(result: AdmissionResult): number | undefined {
  return result.kind === 'deny' ? result.status.code : undefined;
}

describe('a lone UTF-16 surrogate in a name', () => {
  for (const [what, namespace, name] of [
    ['spec.operatorVersion.name', 'ns', 'zk-\ud800'],
    ['metadata.namespace', '\ud800', 'zk'],
    ['both', '\udfff', '\ud800'],
  ] as const) {
    it(`in ${what}: both Instance webhooks deny with a 422 naming the missing OperatorVersion, without asking the API server`, async () => {
      const c = client();
      const options = {
        operatorVersions: liveSource(c),
        validator: new ParameterValidator({ maxCachedOperatorVersions: 4 }),
        controllerUsers: new Set<string>(),
      };
      for (const handler of [instanceMutator(options), instanceValidator(options)]) {
        const result = await handler(instanceRequest(namespace, name), context);
        expect(code(result)).toBe(422);
        expect(result.kind === 'deny' && result.status.message).toContain('does not exist');
        // The answer serialises (JSON escapes the surrogate).
        expect(() => JSON.stringify(toAdmissionResponse('r1', result))).not.toThrow();
      }
      expect(c.paths).toEqual([]);
    });
  }

  it('in the namespace of an Operator being deleted: no OperatorVersions, deletion allowed', async () => {
    const c = client();
    const handler = operatorValidator({
      usage: new CachedKudoUsage({
        instances: () => undefined,
        operatorVersions: () => undefined,
        client: c,
        timeoutMs: 1000,
      }),
    });
    const result = await handler(
      {
        ...instanceRequest('\ud800', 'x'),
        kind: { group: 'kudo.dev', version: 'v1beta1', kind: 'Operator' },
        resource: { group: 'kudo.dev', version: 'v1beta1', resource: 'operators' },
        operation: 'DELETE',
        object: null,
        oldObject: { metadata: { name: 'op', namespace: '\ud800' } },
      },
      context,
    );
    expect(result.kind).toBe('allow');
  });
});

describe('a denial of thousands of parameters', () => {
  it('lists a bounded number of causes, each clipped, and says how many more', async () => {
    const parameters: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) parameters[`unknown-${i}`] = 'x';
    parameters['n'.repeat(100_000)] = 'x';
    const handler = instanceMutator({
      operatorVersions: { get: () => Promise.resolve(ov) },
      validator: new ParameterValidator({ maxCachedOperatorVersions: 4 }),
      controllerUsers: new Set<string>(),
    });
    const request = instanceRequest('test', 'foo-operator');
    (request.object as unknown as { spec: Record<string, unknown> }).spec['parameters'] =
      parameters;
    const result = await handler(request, context);
    expect(code(result)).toBe(422);
    const response = toAdmissionResponse('r1', result);
    const causes = response.status?.details?.causes ?? [];
    expect(causes.length).toBeLessThanOrEqual(ADMISSION_BOUNDS.causes + 1);
    expect(causes[causes.length - 1]?.message).toMatch(
      /^… and \d+ more problems of the same request$/,
    );
    for (const cause of causes) {
      expect((cause.field ?? '').length).toBeLessThan(ADMISSION_BOUNDS.causeChars + 40);
      expect(cause.message.length).toBeLessThan(ADMISSION_BOUNDS.causeMessageChars + 40);
    }
    expect(response.status!.message.length).toBeLessThan(ADMISSION_BOUNDS.messageChars + 40);
    // The whole answer stays small (it was 600 KB).
    expect(JSON.stringify(response).length).toBeLessThan(20_000);
  });

  it("keeps Planwright's own longest refusal whole and cuts an echoed value", () => {
    const refusal = `spec.parameters.X: ${'a running plan and the way out; '.repeat(30)}`;
    expect(refusal.length).toBeGreaterThan(ADMISSION_BOUNDS.causeChars);
    const echoed = `parameter ${'n'.repeat(100_000)} is not defined`;
    const bounded = boundStatus({
      message: 'denied',
      reason: 'Invalid',
      code: 422,
      details: {
        causes: [
          { field: 'spec.parameters.X', message: refusal, reason: 'FieldValueForbidden' },
          { field: 'spec.parameters.n', message: echoed, reason: 'FieldValueNotSupported' },
        ],
      },
    });
    const [kept, cut] = bounded.details?.causes ?? [];
    expect(kept?.message).toBe(refusal);
    expect(cut?.message).toMatch(/… \(\d+ more characters\)$/);
    expect(cut?.message.length).toBeLessThan(ADMISSION_BOUNDS.causeMessageChars + 40);
  });
});
