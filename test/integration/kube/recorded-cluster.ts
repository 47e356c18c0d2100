// The real apiserver as the kube tests see it: a client, the same client recording the method
// of every request it passes on (the tests count writes by it), and a namespace of the test
// file's own, made before its tests run; the client is closed after them.
import { afterAll, beforeAll } from '@jest/globals';
import { KubeClient, type ApplyObject, type RequestOptions } from '../../../src/kube/index.ts';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';

export interface RecordedCluster {
  /** The client as it is: what goes through it is not recorded. */
  readonly client: KubeClient;
  /** The client whose requests are recorded in `methods`. */
  readonly recorded: KubeClient;
  /** The method of every request through `recorded`, in order; a test empties it before a step. */
  readonly methods: string[];
  /** The test namespace (set once the file's first beforeAll ran). */
  readonly ns: string;
  /** The ConfigMap `name` of the test namespace as stored. */
  readonly live: (name: string) => Promise<ApplyObject>;
}

/** A client that records the method of every request it passes on. */
function recording(client: KubeClient, methods: string[]): KubeClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
      return (options: RequestOptions): Promise<unknown> => {
        methods.push(options.method ?? 'GET');
        return target.request(options);
      };
    },
  });
}

/** Registers the namespace's creation (named after `prefix`) and the client's close as hooks. */
export function recordedCluster(prefix: string): RecordedCluster {
  const client = new KubeClient(kubeConfig());
  const methods: string[] = [];
  let ns = '';
  beforeAll(async () => {
    ns = await createTestNamespace(prefix);
  });
  afterAll(() => client.close());
  return {
    client,
    recorded: recording(client, methods),
    methods,
    get ns(): string {
      return ns;
    },
    live: (name) =>
      client.request<ApplyObject>({ path: `/api/v1/namespaces/${ns}/configmaps/${name}` }),
  };
}
