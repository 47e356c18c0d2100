// `npm run controlplane:build`: builds (or finds cached) kube-apiserver, kubectl and etcd.
import { ensureControlPlaneBinaries } from '../localcluster/index.ts';

const started = Date.now();
const binaries = await ensureControlPlaneBinaries({
  onProgress: (line) => void process.stderr.write(`${line}\n`),
});
process.stdout.write(`${JSON.stringify(binaries, null, 2)}\n`);
process.stderr.write(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
