// What `planwright start` and a render worker load when they start. @kubernetes/client-node's
// index and its KubeConfig module pull in its whole generated API (~1,000 modules, ~50 MiB
// resident per process: bench/README.md "Lean"); neither the manager nor a worker may load
// them at start — only the cheap parts Planwright's own kubeconfig reads with, while Pipe
// tasks and plugin-authenticated users load the rest when they need it.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { loadedAtStart, type Loads } from '../support/module-loads.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
/** What main.ts imports before it runs a command (the rest is reached from these). */
const MANAGER = ['cli/run.ts', 'cli/commands/start.ts'];
const WORKER = ['kudo/pool/worker.ts'];
/** The parts of client-node that load no generated code. */
const CHEAP_CLIENT_NODE = [
  '@kubernetes/client-node/dist/config_types.js',
  '@kubernetes/client-node/dist/file_auth.js',
];

function clientNodeParts(loads: Loads): string[] {
  return [...loads.packages.keys()].filter((p) => p.startsWith('@kubernetes/client-node')).sort();
}

describe('what a replica loads at start', () => {
  const manager = loadedAtStart(SRC, MANAGER);
  const worker = loadedAtStart(SRC, WORKER);

  it("the manager loads none of client-node's generated API", () => {
    expect(clientNodeParts(manager)).toEqual(CHEAP_CLIENT_NODE);
  });

  it('a render worker loads the template engine, not the server, the API client or verify', () => {
    const loads = worker;
    expect(clientNodeParts(worker)).toEqual(CHEAP_CLIENT_NODE);
    expect([...loads.packages.keys()]).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(express|node-forge|pino|prom-client)$/)]),
    );
    expect(loads.files).toContain('gotemplate/index.ts');
    expect(loads.files.filter((f) => /^(server|runtime|kudo\/verify)\//.test(f))).toEqual([]);
  });

  it('sees a value import, and not a type-only one', () => {
    // The walk itself: the manager does reach express and the App, and client-node's types
    // (imported with `import type`) are not counted as loads.
    const loads = manager;
    expect(loads.packages.has('express')).toBe(true);
    expect(loads.files).toContain('app.ts');
    expect(loads.packages.has('@kubernetes/client-node')).toBe(false);
  });
});

describe('what a kubectl kudo command loads', () => {
  const SERVER = /^(express|node-forge|pino|pino-pretty|prom-client)$/;

  it('before its verb: commander and the CLI core (the API types), no engine, server or API client', () => {
    const loads = loadedAtStart(SRC, ['cli/kubectl-kudo.ts']);
    expect([...loads.packages.keys()].filter((p) => SERVER.test(p))).toEqual([]);
    expect(clientNodeParts(loads)).toEqual(CHEAP_CLIENT_NODE);
    expect(loads.files.filter((f) => /^(kudo\/(?!api\/)|server\/|app\.ts)/.test(f))).toEqual([]);
  });

  it('a verb that reads packages loads the package library, not the manager or its server', () => {
    const loads = loadedAtStart(SRC, ['cli/commands/package.ts']);
    expect(loads.files).toContain('kudo/package/index.ts');
    expect([...loads.packages.keys()].filter((p) => /^(express|node-forge)$/.test(p))).toEqual([]);
    expect(loads.files.filter((f) => /^(server\/|app\.ts)/.test(f))).toEqual([]);
  });
});
