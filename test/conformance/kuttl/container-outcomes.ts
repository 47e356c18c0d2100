// KUDO's e2e cases assume a real container runtime: `command: ["false"]` exits 1, `sleep 1000`
// keeps running for 1000 s, and an image that does not exist never starts. The workloads
// control plane simulates nodes with kwok, which runs no containers: every pod becomes ready
// and every Job pod succeeds. This test-side mutating webhook (real admission, called by the
// apiserver over TLS, for kuttl's namespaces only) tells kwok what a kubelet would have seen,
// through the workloads mode's documented pod labels (src/localcluster/kwok-stages.ts):
// * a container whose command is `false` or `exit N` (N > 0): the pod fails with that exit code;
// * a container whose command is `sleep N`: the pod keeps running N seconds (and then fails;
//   the cases only rely on it running longer than the Job's activeDeadlineSeconds);
// * an image in the simulated registry's "does not exist" list: the pod never becomes ready.
// Everything else is left to kwok's defaults.
import { pino } from 'pino';
import type { KubeClient } from '../../../src/kube/index.ts';
import {
  POD_FAIL_ANNOTATIONS,
  POD_FAIL_LABEL,
  POD_NOT_READY_LABEL,
} from '../../../src/localcluster/index.ts';
import {
  allow,
  patch,
  StaticCertificateSource,
  type AdmissionRequest,
  type AdmissionResult,
} from '../../../src/server/index.ts';
import { loopbackWebhookServer } from '../../support/admission.ts';

/** Images the simulated registry does not have (KUDO's readiness case uses this one). */
export const NONEXISTENT_IMAGES: ReadonlySet<string> = new Set(['thisisnonexistingimage']);

interface Container {
  image?: string;
  command?: string[];
  args?: string[];
}

type Outcome =
  { fail: { exitCode: number; delaySeconds: number } } | { notReady: true } | undefined;

/** What a kubelet would make of the pod's containers (the first telling container wins). */
export function containerOutcome(containers: readonly Container[]): Outcome {
  for (const c of containers) {
    if (c.image && NONEXISTENT_IMAGES.has(c.image)) return { notReady: true };
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    if (argv.length === 1 && argv[0] === 'false') return { fail: { exitCode: 1, delaySeconds: 0 } };
    const exit = /^exit (\d+)$/.exec(argv.join(' '));
    if (exit && Number(exit[1]) > 0)
      return { fail: { exitCode: Number(exit[1]), delaySeconds: 0 } };
    if (argv[0] === 'sleep' && /^\d+$/.test(argv[1] ?? '')) {
      return { fail: { exitCode: 0, delaySeconds: Number(argv[1]) } };
    }
  }
  return undefined;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function podMutation(request: AdmissionRequest): AdmissionResult {
  const pod = request.object as
    | { metadata?: { labels?: object; annotations?: object }; spec?: { containers?: Container[] } }
    | undefined;
  const outcome = containerOutcome(pod?.spec?.containers ?? []);
  if (!outcome) return allow();
  const ops: Array<{ op: 'add'; path: string; value: unknown }> = [];
  if (!pod?.metadata?.labels) ops.push({ op: 'add', path: '/metadata/labels', value: {} });
  if (!pod?.metadata?.annotations)
    ops.push({ op: 'add', path: '/metadata/annotations', value: {} });
  if ('notReady' in outcome) {
    ops.push({ op: 'add', path: `/metadata/labels/${escape(POD_NOT_READY_LABEL)}`, value: 'true' });
  } else {
    ops.push({ op: 'add', path: `/metadata/labels/${escape(POD_FAIL_LABEL)}`, value: 'true' });
    const a = POD_FAIL_ANNOTATIONS;
    const annotations: Record<string, string> = {
      [a.exitCode]: String(outcome.fail.exitCode || 1),
      [a.reason]: outcome.fail.exitCode > 0 ? 'Error' : 'Killed',
      [a.delay]: `${outcome.fail.delaySeconds}s`,
    };
    for (const [k, v] of Object.entries(annotations)) {
      ops.push({ op: 'add', path: `/metadata/annotations/${escape(k)}`, value: v });
    }
  }
  return patch(ops);
}

export interface ContainerOutcomes {
  stop(): Promise<void>;
}

/** Serves {@link podMutation} and registers it for Pod CREATE in namespaces with the prefix. */
export async function startContainerOutcomes(
  client: KubeClient,
  namespacePrefix: string,
  name: string,
): Promise<ContainerOutcomes> {
  const loopback = StaticCertificateSource.forLoopback('kuttl-container-outcomes');
  const stop = new AbortController();
  const server = loopbackWebhookServer(loopback.source, pino({ level: 'warn' }));
  server.registerMutating('pods', podMutation);
  const { port } = await server.listen(stop.signal);
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'container-outcomes.planwright.dev',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        // Only a simulation: a pod is better created plain than refused.
        failurePolicy: 'Ignore',
        timeoutSeconds: 5,
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] },
        ],
        matchConditions: [
          {
            name: 'namespace-prefix',
            expression: `request.namespace.startsWith(${JSON.stringify(namespacePrefix)})`,
          },
        ],
        clientConfig: {
          url: `https://127.0.0.1:${port}/mutate/pods`,
          caBundle: Buffer.from(loopback.caPem).toString('base64'),
        },
      },
    ],
  };
  const path = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
  await client.request({ method: 'POST', path, body: config });
  return {
    stop: async () => {
      await client.request({ method: 'DELETE', path: `${path}/${name}` }).catch(() => undefined);
      stop.abort();
      await server.stop();
    },
  };
}
