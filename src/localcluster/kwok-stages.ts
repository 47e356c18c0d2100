// The kwok Stages of the workloads mode: how simulated nodes and pods move through their
// lives. Written to the file kwok reads with --config (Stage CRDs are not installed, so the
// cluster under test holds no kwok objects).
//
// Templates are Go templates rendered by kwok (sprig + kwok's Now, Quote, NodeConditions,
// NodeIPWith, PodIPWith…) into a strategic-merge patch of the object's `status`; selectors are
// jq expressions over the object.
import { stringify } from 'yaml';

/**
 * Label that makes a running pod fail (phase Failed, its containers terminated). Annotations
 * with the same prefix tune it: `/reason`, `/message`, `/exit-code` (a number), `/delay` (a Go
 * duration such as `3s`, default 500ms) and `/container-name` (only that container fails).
 * Put it on a Job's pod template (with `backoffLimit: 0` the Job is Failed at once) or on a
 * bare pod. On a Deployment's pods it makes the ReplicaSet replace them again and again.
 */
export const POD_FAIL_LABEL = 'pod-container-running-failed.stage.kwok.x-k8s.io';
export const POD_FAIL_ANNOTATIONS = {
  reason: `${POD_FAIL_LABEL}/reason`,
  message: `${POD_FAIL_LABEL}/message`,
  exitCode: `${POD_FAIL_LABEL}/exit-code`,
  delay: `${POD_FAIL_LABEL}/delay`,
  containerName: `${POD_FAIL_LABEL}/container-name`,
} as const;

/**
 * Label that keeps a pod running but never ready (containers running, `ready: false`): a
 * Deployment or StatefulSet whose template carries it never becomes available.
 */
export const POD_NOT_READY_LABEL = 'pod-running-not-ready.stage.kwok.x-k8s.io';

interface StageSelectorExpression {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

interface StageDefinition {
  readonly name: string;
  readonly kind: 'Node' | 'Pod';
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly StageSelectorExpression[];
  /** Among stages matching the same object, only those with the highest weight class run. */
  readonly weight?: number;
  readonly delay?: {
    readonly ms: number;
    readonly jitterMs?: number;
    readonly fromAnnotation?: string;
  };
  /** Go template of the status patch. */
  readonly status?: string;
  readonly delete?: boolean;
}

const READY_STATUS = '.status.conditions.[] | select( .type == "Ready" ) | .status';

const notDeleted: StageSelectorExpression = {
  key: '.metadata.deletionTimestamp',
  operator: 'DoesNotExist',
};
const phaseIs = (phase: string): StageSelectorExpression => ({
  key: '.status.phase',
  operator: 'In',
  values: [phase],
});

/** Node conditions as a healthy kubelet reports them; heartbeat refreshed each time. */
const nodeConditions = `{{ $now := Now }}
{{ $since := or .metadata.creationTimestamp $now }}
conditions:
{{ range NodeConditions }}
- type: {{ .type | Quote }}
  status: {{ .status | Quote }}
  reason: {{ .reason | Quote }}
  message: {{ .message | Quote }}
  lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $since | Quote }}
{{ end }}`;

function nodeInitializeStatus(kubeletVersion: string): string {
  return `${nodeConditions}
nodeInfo:
  architecture: amd64
  operatingSystem: linux
  osImage: "kwok simulated node"
  kernelVersion: {{ printf "kwok-v%s" Version | Quote }}
  containerRuntimeVersion: {{ printf "kwok://v%s" Version | Quote }}
  kubeletVersion: ${JSON.stringify(kubeletVersion)}
  machineID: ""
  systemUUID: ""
  bootID: ""
phase: Running
`;
}

/** Addresses of the pod: the node's InternalIP, and one from kwok's pod CIDR. */
const podAddresses = `{{ with NodeIPWith .spec.nodeName }}
hostIP: {{ . | Quote }}
hostIPs:
- ip: {{ . | Quote }}
{{ end }}
{{ with PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
podIP: {{ . | Quote }}
podIPs:
- ip: {{ . | Quote }}
{{ end }}`;

/** Running pod; `ready` decides whether containers (and so the pod) are ready. */
function runningStatus(ready: boolean): string {
  const status = ready ? '"True"' : '"False"';
  const reason = ready ? '' : '\n  reason: ContainersNotReady';
  return `{{ $now := Now }}
conditions:
- type: Initialized
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
- type: PodReadyToStartContainers
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
- type: ContainersReady
  status: ${status}${reason}
  lastTransitionTime: {{ $now | Quote }}
- type: Ready
  status: ${status}${reason}
  lastTransitionTime: {{ $now | Quote }}
${
  ready
    ? `{{ range .spec.readinessGates }}
- type: {{ .conditionType | Quote }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}`
    : ''
}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: {{ printf "kwok://%s" .image | Quote }}
  ready: ${ready}
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
initContainerStatuses:
{{ range .spec.initContainers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: {{ printf "kwok://%s" .image | Quote }}
  restartCount: 0
{{ if eq ( or .restartPolicy "" ) "Always" }}
  ready: ${ready}
  started: true
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ else }}
  ready: true
  started: false
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
${podAddresses}
phase: Running
startTime: {{ $now | Quote }}
`;
}

/** Every container terminated: exit 0 (Succeeded) or the failure the annotations describe. */
function terminatedStatus(outcome: 'Succeeded' | 'Failed'): string {
  const failed = outcome === 'Failed';
  const a = POD_FAIL_ANNOTATIONS;
  const header = failed
    ? `{{ $annotations := or .metadata.annotations dict }}
{{ $only := or ( index $annotations "${a.containerName}" ) "" }}
{{ $reason := or ( index $annotations "${a.reason}" ) "Error" }}
{{ $message := or ( index $annotations "${a.message}" ) "container failed (simulated by kwok)" }}
{{ $exitCode := or ( index $annotations "${a.exitCode}" ) "1" }}`
    : '';
  const terminated = failed
    ? `exitCode: {{ $exitCode }}
      reason: {{ $reason | Quote }}
      message: {{ $message | Quote }}`
    : `exitCode: 0
      reason: Completed`;
  const each = failed ? '{{ if or ( not $only ) ( eq .name $only ) }}' : '{{ if true }}';
  return `{{ $now := Now }}
${header}
conditions:
- type: ContainersReady
  status: "False"
  reason: ${failed ? 'PodFailed' : 'PodCompleted'}
  lastTransitionTime: {{ $now | Quote }}
- type: Ready
  status: "False"
  reason: ${failed ? 'PodFailed' : 'PodCompleted'}
  lastTransitionTime: {{ $now | Quote }}
containerStatuses:
{{ range .spec.containers }}
${each}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    terminated:
      ${terminated}
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
phase: ${outcome}
`;
}

function stageDefinitions(kubeletVersion: string): StageDefinition[] {
  return [
    {
      // A new Node (or one whose Ready condition is gone) becomes a healthy, Ready node.
      name: 'node-initialize',
      kind: 'Node',
      matchExpressions: [{ key: READY_STATUS, operator: 'NotIn', values: ['True'] }],
      status: nodeInitializeStatus(kubeletVersion),
    },
    {
      // Liveness travels through the node Lease kwok renews (--node-lease-duration-seconds);
      // the conditions' heartbeat is refreshed rarely, as a kubelet does.
      name: 'node-heartbeat-with-lease',
      kind: 'Node',
      matchExpressions: [
        phaseIs('Running'),
        { key: READY_STATUS, operator: 'In', values: ['True'] },
      ],
      delay: { ms: 600_000, jitterMs: 610_000 },
      status: nodeConditions,
    },
    {
      name: 'pod-ready',
      kind: 'Pod',
      matchExpressions: [
        notDeleted,
        phaseIs('Pending'),
        { key: READY_STATUS, operator: 'NotIn', values: ['True'] },
      ],
      status: runningStatus(true),
    },
    {
      // Weighted, so it wins over pod-ready (weight 0) for labelled pods.
      name: 'pod-running-not-ready',
      kind: 'Pod',
      matchLabels: { [POD_NOT_READY_LABEL]: 'true' },
      matchExpressions: [notDeleted, phaseIs('Pending')],
      weight: 1,
      status: runningStatus(false),
    },
    {
      // A Job's pods run to completion: the Job controller counts them Succeeded.
      name: 'pod-complete',
      kind: 'Pod',
      matchExpressions: [
        notDeleted,
        phaseIs('Running'),
        { key: '.metadata.ownerReferences.[].kind', operator: 'In', values: ['Job'] },
      ],
      status: terminatedStatus('Succeeded'),
    },
    {
      // Chaos: a labelled running pod fails. Weighted, so it wins over pod-complete.
      name: 'pod-container-running-failed',
      kind: 'Pod',
      matchLabels: { [POD_FAIL_LABEL]: 'true' },
      matchExpressions: [notDeleted, phaseIs('Running')],
      weight: 1,
      delay: { ms: 500, fromAnnotation: POD_FAIL_ANNOTATIONS.delay },
      status: terminatedStatus('Failed'),
    },
    {
      // No kubelet confirms the shutdown: a pod being deleted is removed at once. Finalizers
      // are left to their owners (the Job controller removes its tracking finalizer).
      name: 'pod-delete',
      kind: 'Pod',
      matchExpressions: [{ key: '.metadata.deletionTimestamp', operator: 'Exists' }],
      delete: true,
    },
  ];
}

function toStage(def: StageDefinition): Record<string, unknown> {
  const steps: Array<Record<string, unknown>> = [];
  if (def.status !== undefined) {
    steps.push({ patch: { subresource: 'status', root: 'status', template: def.status } });
  }
  if (def.delete) steps.push({ delete: true });
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name: def.name },
    spec: {
      resourceRef: { apiGroup: 'v1', kind: def.kind },
      selector: {
        matchLabels: def.matchLabels,
        matchExpressions: def.matchExpressions,
      },
      weight: def.weight,
      ...(def.delay
        ? {
            delay: {
              durationMilliseconds: def.delay.ms,
              ...(def.delay.fromAnnotation
                ? {
                    durationFrom: {
                      jq: { expression: `.metadata.annotations["${def.delay.fromAnnotation}"]` },
                    },
                  }
                : {}),
              jitterDurationMilliseconds: def.delay.jitterMs,
            },
          }
        : {}),
      steps,
    },
  };
}

/** The Stage names, in the order they are written. */
export const STAGE_NAMES: readonly string[] = stageDefinitions('v0.0.0').map((s) => s.name);

/**
 * The multi-document YAML kwok reads with `--config`. `kubeletVersion` is what nodes report
 * (the control plane's Kubernetes version, so `kubectl get nodes` looks like a real cluster).
 */
export function kwokStagesYaml(kubeletVersion: string): string {
  return stageDefinitions(kubeletVersion)
    .map((def) => stringify(toStage(def), { lineWidth: 0 }))
    .join('---\n');
}
