// The template workload bench/gotemplate.ts and bench/gotemplate-wasm.ts share: zookeeper's
// statefulset.yaml (~3.5 KB, a typical KUDO package template) with KUDO's variables, the
// data in the oracle's tagged encoding (test/gotemplate/tagged.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from '../../test/gotemplate/oracle.ts';

export interface TemplateWorkload {
  readonly template: string;
  readonly data: unknown;
}

export function zookeeperStatefulset(): TemplateWorkload {
  const template = readFileSync(
    join(sharedDir, 'kudo-packages', 'zookeeper', 'templates', 'statefulset.yaml'),
    'utf8',
  );
  const data = {
    OperatorName: 'zookeeper',
    Name: 'zk',
    Namespace: 'default',
    OperatorVersion: '0.3.0',
    AppVersion: '3.4.14',
    PlanName: 'deploy',
    PhaseName: 'zookeeper',
    StepName: 'deploy',
    Pipes: { $strmap: {} },
    Params: {
      NODE_COUNT: '3',
      MEMORY: '1024Mi',
      MEM_LIMIT: '2048Mi',
      CPUS: '250m',
      CPUS_LIMIT: '1000m',
      STORAGE_CLASS: '',
      DISK_SIZE: '5Gi',
      CLIENT_PORT: '2181',
      SERVER_PORT: '2888',
      ELECTION_PORT: '3888',
      IMAGE_PULL_POLICY: 'Always',
    },
  };
  return { template, data };
}
