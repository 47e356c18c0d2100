// Property-based fuzz of the Instance webhook over real HTTPS: AdmissionReviews whose fields
// are generated with the right shape or a wrong one (a number where a string belongs, a list
// where a map belongs, deep or huge values). Whatever arrives, the answer is never a 500 and
// the server keeps serving: a wrong shape is a 400 naming the field, or a denial naming it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import https from 'node:https';
import fc from 'fast-check';
import { instanceMutator } from '../../../../src/kudo/admission/index.ts';
import { ParameterValidator } from '../../../../src/kudo/params/index.ts';
import type { WebhookServer } from '../../../../src/server/index.ts';
import { StaticCertificateSource } from '../../../../src/server/index.ts';
import { capturingLogger, httpsRequest } from '../../../support/https.ts';
import { typedOv } from '../fixtures.ts';
import { instanceReview, loopbackWebhookServer } from '../../../support/admission.ts';

const tls = StaticCertificateSource.forLoopback('fuzz-webhook');

/** A right value for a field, or anything at all. */
const or = <T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: right }, { weight: 1, arbitrary: fc.anything() });

/** Every path to a value inside `value` (objects and arrays), the root excluded. */
function paths(value: unknown, prefix: readonly (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object' || prefix.length > 8) return [];
  const out: (string | number)[][] = [];
  for (const [k, v] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(k) : k];
    out.push(path, ...paths(v, path));
  }
  return out;
}

/** `value` with the value at `path` replaced by `replacement` (copies along the path). */
function replaced(
  value: unknown,
  path: readonly (string | number)[],
  replacement: unknown,
): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (
    Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }
  ) as Record<string | number, unknown>;
  copy[head as string | number] = replaced(copy[head as string | number], rest, replacement);
  return copy;
}

const name = fc.stringMatching(/^[a-z0-9_-]{0,12}$/);
const deep = fc.nat({ max: 3000 }).map((n) => {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
  return v;
});
const parameterValue = fc.oneof(
  fc.string(),
  fc.constantFrom('5', '9223372036854775807', '[a, b]', '{a: 1}', '&a [*a]', '- '.repeat(500)),
  fc.integer(),
  deep,
  fc.anything(),
);
const parameters = or(
  fc.dictionary(
    fc.oneof(name, fc.constantFrom('__proto__', 'constructor', 'toString', 'SIZE', 'MAP')),
    parameterValue,
    { maxKeys: 6 },
  ),
);
const planStatus = fc.dictionary(
  name,
  or(
    fc.record(
      {
        uid: or(name),
        status: or(fc.constantFrom('IN_PROGRESS', 'COMPLETE', 'FATAL_ERROR')),
        phases: or(fc.array(or(fc.record({ name: or(name), steps: or(fc.array(fc.anything())) })))),
      },
      { requiredKeys: [] },
    ),
  ),
  { maxKeys: 3 },
);
const instance = or(
  fc.record(
    {
      metadata: or(
        fc.record(
          {
            name: or(name),
            namespace: or(name),
            labels: or(fc.dictionary(name, or(fc.string()))),
            finalizers: or(fc.array(or(name))),
            deletionTimestamp: or(fc.constant('2026-01-01T00:00:00Z')),
          },
          { requiredKeys: [] },
        ),
      ),
      spec: or(
        fc.record(
          {
            operatorVersion: or(fc.record({ name: or(fc.constant('typed')), namespace: or(name) })),
            parameters,
            planExecution: or(
              fc.record(
                { planName: or(name), uid: or(name), abort: or(fc.boolean()) },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
      status: or(fc.record({ planStatus: or(planStatus) }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  ),
);
const review = fc.record(
  {
    apiVersion: or(fc.constant('admission.k8s.io/v1')),
    kind: or(fc.constant('AdmissionReview')),
    request: or(
      fc.record(
        {
          uid: or(fc.uuid()),
          kind: or(
            fc.record({ group: or(fc.constant('kudo.dev')), kind: or(fc.constant('Instance')) }),
          ),
          resource: or(fc.record({ resource: or(fc.constant('instances')) })),
          subResource: or(fc.constantFrom('', 'status')),
          name: or(name),
          namespace: or(name),
          operation: or(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT')),
          userInfo: or(
            fc.record({ username: or(name), groups: or(fc.array(or(name))) }, { requiredKeys: [] }),
          ),
          object: instance,
          oldObject: instance,
          dryRun: or(fc.boolean()),
        },
        { requiredKeys: ['uid', 'operation'] },
      ),
    ),
  },
  { requiredKeys: ['request'] },
);

/** A well-formed UPDATE of a running Instance: every field the handler reads is present. */
const wellFormed = fc
  .record({
    uid: fc.uuid(),
    planName: fc.constantFrom('deploy', 'update', 'backup'),
    parameters: fc.dictionary(
      fc.constantFrom('SIZE', 'MAP', 'PASSWORD', 'constructor'),
      fc.string(),
      {
        maxKeys: 4,
      },
    ),
  })
  .map(({ uid, planName, parameters }) => {
    const object = {
      metadata: { name: 'i', namespace: 'ns', labels: { a: 'b' }, finalizers: ['f'] },
      spec: {
        operatorVersion: { name: 'typed', namespace: 'ns' },
        parameters,
        planExecution: { planName, uid: 'run-1' },
      },
      status: {
        planExecution: { planName, uid: 'run-1', status: 'IN_PROGRESS' },
        planStatus: {
          [planName]: {
            uid: 'run-1',
            status: 'IN_PROGRESS',
            startedAt: '2026-01-01T00:00:00Z',
            phases: [
              { name: 'p', status: 'IN_PROGRESS', steps: [{ name: 's', status: 'IN_PROGRESS' }] },
            ],
          },
        },
      },
    };
    return instanceReview({
      uid,
      name: 'i',
      namespace: 'ns',
      operation: 'UPDATE',
      userInfo: { username: 'alice', groups: ['devs'] },
      object: { ...object, spec: { ...object.spec, parameters: { ...parameters, SIZE: '7' } } },
      oldObject: object,
      dryRun: false,
    });
  });

/** A well-formed review with exactly one value (anywhere in it) of a random other shape. */
const oneWrongField = wellFormed
  .chain((body) => fc.tuple(fc.constant(body), fc.constantFrom(...paths(body)), fc.anything()))
  .map(([body, path, value]) => replaced(body, path, value));

describe('Instance webhook under wrong-shaped AdmissionReviews', () => {
  const { logger } = capturingLogger();
  const stop = new AbortController();
  let server: WebhookServer;
  let port = 0;
  const agent = new https.Agent({ keepAlive: true, ca: tls.caPem, maxSockets: 4 });

  beforeAll(async () => {
    server = loopbackWebhookServer(tls.source, logger);
    server.registerMutating(
      'instances',
      instanceMutator({
        operatorVersions: { get: () => Promise.resolve(typedOv) },
        validator: new ParameterValidator({ maxCachedOperatorVersions: 4 }),
        controllerUsers: new Set(['system:serviceaccount:x:planwright']),
      }),
    );
    ({ port } = await server.listen(stop.signal));
  });

  afterAll(async () => {
    agent.destroy();
    stop.abort();
    await server.stop();
  });

  it('never answers 500 and never crashes', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(oneWrongField, review), async (body) => {
        const text = JSON.stringify(body);
        const res = await httpsRequest({
          port,
          path: '/mutate/instances',
          ca: tls.caPem,
          body: text,
          agent,
          headers: { 'content-type': 'application/json' },
        });
        const answer = JSON.parse(res.text) as {
          response?: { allowed?: boolean; status?: { code?: number; message?: string } };
        };
        const code = res.status === 200 ? (answer.response?.status?.code ?? 200) : res.status;
        seen.set(code, (seen.get(code) ?? 0) + 1);
        expect([200, 400, 403, 422]).toContain(code);
        // Messages quote excerpts, never whole values.
        expect(answer.response?.status?.message?.length ?? 0).toBeLessThan(4096);
      }),
      { numRuns: 600 },
    );
    // The generators reach both the 400 path (review shape) and the handler's denials.
    expect(seen.get(400)).toBeGreaterThan(0);
    expect(seen.get(422)).toBeGreaterThan(0);
    const healthy = await httpsRequest({ port, path: '/healthz', ca: tls.caPem, agent });
    expect(healthy.status).toBe(200);
  });
});
