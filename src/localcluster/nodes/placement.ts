// Mixed nodes: which pods go to kwok. Part of the local cluster, not of the product: a pod whose
// images the local registry holds runs on a real node; a pod with an image the registry lacks
// (a real package's application image, which cannot exist on this machine) is sent to the
// kwok nodes, which are tainted so nothing else lands there. The rule looks at nothing but the
// images and what the registry answers for them; a pod that selects a node kind itself
// (`planwright.dev/node-kind: real|kwok`) keeps it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate, type CertificateAuthority } from '../../pki/index.ts';
import { parseImageRef, pulledLocally } from './image-ref.ts';
import { hasManifest } from './registry-client.ts';
import { NODE_KIND_LABEL } from './real-node.ts';

/** The taint of kwok nodes in mixed mode, and the toleration placement adds. */
export const SIMULATED_NODE_TAINT = {
  key: 'planwright.dev/simulated-node',
  value: 'true',
  effect: 'NoSchedule',
} as const;

interface PodSpecView {
  containers?: Array<{ image?: string }>;
  initContainers?: Array<{ image?: string }>;
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
}

/** JSON patch operations sending a pod to the kwok nodes. */
export function sendToSimulatedNodes(spec: PodSpecView): object[] {
  const toleration = { ...SIMULATED_NODE_TAINT, operator: 'Equal' };
  return [
    spec.tolerations
      ? { op: 'add', path: '/spec/tolerations/-', value: toleration }
      : { op: 'add', path: '/spec/tolerations', value: [toleration] },
    spec.nodeSelector
      ? {
          op: 'add',
          path: `/spec/nodeSelector/${NODE_KIND_LABEL.replace('/', '~1')}`,
          value: 'kwok',
        }
      : { op: 'add', path: '/spec/nodeSelector', value: { [NODE_KIND_LABEL]: 'kwok' } },
  ];
}

export interface PlacementWebhook {
  readonly url: string;
  /** The MutatingWebhookConfiguration that sends pod creations to it. */
  readonly configuration: Record<string, unknown>;
  close(): Promise<void>;
}

/** Whether the registry holds every image of the pod (answers cached per image). */
async function allImagesLocal(
  spec: PodSpecView,
  registry: string,
  cache: Map<string, Promise<boolean>>,
): Promise<boolean> {
  const images = [...(spec.containers ?? []), ...(spec.initContainers ?? [])]
    .map((c) => c.image ?? '')
    .filter((i) => i !== '');
  for (const image of images) {
    let held = cache.get(image);
    if (!held) {
      const location = parseImageRef(image);
      held = pulledLocally(location)
        ? hasManifest(registry, location.repository, location.reference)
        : Promise.resolve(false);
      cache.set(image, held);
    }
    if (!(await held)) return false;
  }
  return true;
}

/** The name of the MutatingWebhookConfiguration that sends pod creations to the webhook. */
export const PLACEMENT_WEBHOOK_NAME = 'planwright-local-node-placement';

/**
 * Serves the placement webhook on 127.0.0.1 (HTTPS with a certificate of the cluster's serving
 * CA) for the process that owns the cluster.
 */
export async function startPlacementWebhook(input: {
  readonly servingCa: CertificateAuthority;
  readonly registry: string;
}): Promise<PlacementWebhook> {
  const cert = issueCertificate(input.servingCa, {
    commonName: 'planwright-node-placement',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
    keyAlgorithm: 'ecdsa-p256',
  });
  const server: Server = createServer(
    { cert: cert.certPem, key: cert.keyPem },
    placementHandler(input.registry),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The owner process must not be kept alive by it: the cluster's stop closes it.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const url = `https://127.0.0.1:${port}/place`;
  return {
    url,
    configuration: webhookConfiguration(url, input.servingCa),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Answers each AdmissionReview of a pod creation with the patch placing it (if any). */
function placementHandler(registry: string): (req: IncomingMessage, res: ServerResponse) => void {
  const cache = new Map<string, Promise<boolean>>();
  return (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(body) as {
          request: { uid: string; object?: { spec?: PodSpecView } };
        };
        const patch = await placementPatch(review.request.object?.spec ?? {}, registry, cache);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: admissionResponse(review.request.uid, patch),
          }),
        );
      })().catch((err: Error) => {
        res.statusCode = 400;
        res.end(err.message);
      });
    });
  };
}

/** The JSON patch for one pod: empty when it stays where the scheduler puts it. */
async function placementPatch(
  spec: PodSpecView,
  registry: string,
  cache: Map<string, Promise<boolean>>,
): Promise<object[]> {
  try {
    // A pod that selects a node kind itself keeps its choice.
    const chosen = spec.nodeSelector?.[NODE_KIND_LABEL] !== undefined;
    if (!chosen && !(await allImagesLocal(spec, registry, cache))) {
      return sendToSimulatedNodes(spec);
    }
    return [];
  } catch {
    // The registry did not answer: the pod goes where the scheduler puts it (a real
    // node), and a missing image shows there as a failed pull.
    return [];
  }
}

function admissionResponse(uid: string, patch: readonly object[]): Record<string, unknown> {
  return {
    uid,
    allowed: true,
    ...(patch.length > 0
      ? {
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        }
      : {}),
  };
}

function webhookConfiguration(
  url: string,
  servingCa: CertificateAuthority,
): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: PLACEMENT_WEBHOOK_NAME },
    webhooks: [
      {
        name: 'node-placement.local.planwright.dev',
        clientConfig: { url, caBundle: Buffer.from(servingCa.certPem).toString('base64') },
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
        ],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        reinvocationPolicy: 'IfNeeded',
        timeoutSeconds: 10,
      },
    ],
  };
}
