// KUDO's e2e cases under the real kuttl, on a cluster with a real node: `command: ["false"]`
// exits 1, `sleep 1000` keeps running past the Job's activeDeadlineSeconds and an image the
// cluster's registry lacks fails to pull, all for real (docs/local-cluster-nodes.md).
import { describeKudoCases } from '../../conformance/kuttl/kudo-suite.ts';

describeKudoCases('KUDO e2e cases under kuttl (real node)', ['e2e'], {
  // terminal-failed-job waits for a Job's activeDeadlineSeconds (60 s) to pass.
  timeout: 120,
  realNodes: true,
});
