#!/usr/bin/env node
// The `planwright` executable: every `kubectl kudo` verb, plus `start` (run the manager; what
// `npm start` runs) and `init` (install Planwright into a cluster).
//
// Source maps for Planwright's own modules only: @kubernetes/client-node is loaded first,
// before they are enabled. Its maps, held in the manager's heap for good, cost more memory
// than all the engine's caches at a thousand Instances, for stack frames inside a dependency
// (figures: bench/README.md). Hence dynamic imports below.
await import('@kubernetes/client-node');
process.setSourceMapsEnabled(true);
const { runCli } = await import('./cli/run.ts');
const { startCommand } = await import('./cli/commands/start.ts');

process.exitCode = await runCli('planwright', process.argv.slice(2), (ctx) => [startCommand(ctx)]);
