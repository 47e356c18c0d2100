#!/usr/bin/env node
// The `planwright` executable: every `kubectl kudo` verb, plus `start` (run the manager; what
// `npm start` runs) and `init` (install Planwright into a cluster).
//
// Source maps for Planwright's own modules only: @kubernetes/client-node is loaded first,
// before they are enabled. Its maps (7 MB of .js.map) held in the manager's heap for good
// cost more memory (~14 MiB RSS with --enable-source-maps) than all the engine's caches at
// 1,000 Instances, for stack frames inside a dependency. Hence dynamic imports below.
await import('@kubernetes/client-node');
process.setSourceMapsEnabled(true);
const { runCli } = await import('./cli/run.ts');
const { startCommand } = await import('./cli/commands/start.ts');

process.exitCode = await runCli('planwright', process.argv.slice(2), (ctx) => [startCommand(ctx)]);
