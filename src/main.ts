#!/usr/bin/env node
// The `planwright` executable: every `kubectl kudo` verb, plus `start` (run the manager; what
// `npm start` runs) and `init` (install Planwright into a cluster).
//
// Source maps are enabled before Planwright's modules load (hence the dynamic imports): stack
// frames in logs then name TypeScript lines. Nothing here loads @kubernetes/client-node's
// generated API (src/kube/kubeconfig.ts): only a Pipe task or a plugin-authenticated user does,
// and its maps are not read (they cost ~14 MiB held for good; bench/README.md).
process.setSourceMapsEnabled(true);
const { runCli } = await import('./cli/run.ts');
const { START_VERB } = await import('./cli/verbs.ts');

process.exitCode = await runCli('planwright', process.argv.slice(2), [START_VERB]);
