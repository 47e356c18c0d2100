// The Dockerfile, checked without a daemon (see test/support/dockerfile.ts): the repository's
// passes, and each check refuses the mistake it is there for. That the final stage's files
// run is proven by the e2e tests, which run the image built from them as pods on a real node.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { MANAGER_NODE_FLAGS } from '../../src/cli/image.ts';
import { repositoryRoot } from '../../src/localcluster/paths.ts';
import {
  DOCKERFILE,
  dockerfileProblems,
  dockerignorePatterns,
  finalStage,
  type DeploymentFacts,
} from '../support/dockerfile.ts';

interface DeploymentDoc {
  kind?: string;
  spec?: {
    template?: {
      spec?: {
        securityContext?: { runAsUser?: number; runAsNonRoot?: boolean };
        containers?: Array<{ args?: string[]; ports?: Array<{ containerPort?: number }> }>;
      };
    };
  };
}

const deploymentDoc = (): DeploymentDoc => {
  const text = readFileSync(
    join(repositoryRoot(), 'manifests', 'deployment', 'deployment.yaml'),
    'utf8',
  );
  const found = parseAllDocuments(text)
    .map((d) => d.toJS() as DeploymentDoc)
    .find((d) => d.kind === 'Deployment');
  if (!found) throw new Error('manifests/deployment/deployment.yaml has no Deployment');
  return found;
};

describe('Dockerfile', () => {
  const text = readFileSync(DOCKERFILE, 'utf8');
  const pod = deploymentDoc().spec?.template?.spec;
  const facts: DeploymentFacts = {
    runAsUser: pod?.securityContext?.runAsUser ?? -1,
    containerPort: pod?.containers?.[0]?.ports?.[0]?.containerPort ?? -1,
  };

  it('has no problems, and agrees with the Deployment (uid, port)', () => {
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(dockerfileProblems(text, facts, dockerignorePatterns())).toEqual([]);
    const args = pod?.containers?.[0]?.args ?? [];
    expect(args[args.indexOf('--webhook-port') + 1]).toBe(String(facts.containerPort));
  });

  it('runs `start` from dist/ with production settings, as a non-root user', () => {
    const stage = finalStage(text);
    expect(stage.entrypoint).toEqual(['node', ...MANAGER_NODE_FLAGS, 'dist/main.js', 'start']);
    // `npm start` runs the manager with the image's flags.
    const pkg = JSON.parse(readFileSync(join(repositoryRoot(), 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['start']).toBe(`node ${MANAGER_NODE_FLAGS.join(' ')} dist/main.js start`);
    expect(stage.env['NODE_ENV']).toBe('production');
    expect(stage.user).toBe('65532:65532');
    // Only build output and what start reads: no sources, no tests, no dev tooling, and no
    // node_modules (dist/ is a bundle of everything it runs: test/integration/cli/bundle.test.ts).
    expect(stage.copies.filter((c) => c.from === 'build').flatMap((c) => c.sources)).toEqual([
      '/src/dist',
    ]);
    expect(stage.copies.flatMap((c) => c.sources).sort()).toEqual([
      '/src/dist',
      'manifests',
      'package.json',
    ]);
  });

  it.each([
    [
      'a root user',
      ['USER 65532:65532', 'USER root'],
      'USER root: the final stage must set a numeric user',
    ],
    ['uid 0', ['USER 65532:65532', 'USER 0'], 'USER 0: the final stage must not run as root'],
    [
      'another uid than the Deployment',
      ['USER 65532:65532', 'USER 1000'],
      'the Deployment runs as 65532',
    ],
    [
      'an unpinned base image',
      ['FROM node:22-bookworm-slim\n', 'FROM node\n'],
      'FROM node: pin the base image',
    ],
    [
      'latest',
      ['FROM node:22-bookworm-slim AS build', 'FROM node:latest AS build'],
      'FROM node:latest: pin',
    ],
    [
      'npm install',
      ['RUN npm ci --no-audit --no-fund', 'RUN npm install --no-audit --no-fund'],
      'use npm ci',
    ],
    [
      'a shell-form ENTRYPOINT',
      [
        `ENTRYPOINT ${JSON.stringify(['node', ...MANAGER_NODE_FLAGS, 'dist/main.js', 'start']).replaceAll(',', ', ')}`,
        'ENTRYPOINT node dist/main.js start',
      ],
      'ENTRYPOINT in shell form',
    ],
    ['another port', ['EXPOSE 9443', 'EXPOSE 8443'], "the Deployment's webhook port is 9443"],
    ['a relative WORKDIR', ['WORKDIR /app', 'WORKDIR app'], 'WORKDIR app: use an absolute path'],
    ['ADD', ['COPY manifests ./manifests', 'ADD manifests ./manifests'], 'ADD: use COPY'],
    [
      'an ignored source',
      ['COPY manifests ./manifests', 'COPY test ./test'],
      'COPY test: excluded by .dockerignore',
    ],
    [
      'an ignored source after a flag',
      ['COPY manifests ./manifests', 'COPY --chown=1:1 dist ./dist'],
      'COPY dist: excluded by .dockerignore',
    ],
    [
      'lowercase instructions',
      ['EXPOSE 9443', 'expose 9443'],
      'Instructions should be written in uppercase',
    ],
    [
      'a changed build',
      ['RUN npm run build', 'RUN npm run build && npm prune --omit=dev'],
      'change both together',
    ],
  ])('refuses %s', (_what, [from, to], problem) => {
    expect(text).toContain(from);
    const broken = text.replace(from ?? '', to ?? '');
    expect(dockerfileProblems(broken, facts, dockerignorePatterns()).join('\n')).toContain(problem);
  });
});
