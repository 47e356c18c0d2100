#!/usr/bin/env node
// The `kubectl-kudo` executable: on PATH, kubectl runs it for `kubectl kudo …` (verbs at the
// top level, as KUDO's plugin had them).
import { runCli } from './run.ts';
import { START_VERB } from './verbs.ts';

process.exitCode = await runCli('kubectl kudo', process.argv.slice(2), [START_VERB]);
