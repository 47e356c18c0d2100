// Planwright's image, built on this machine without a docker daemon: the Dockerfile's final
// stage, declared here as data (test/unit/cli/image.test.ts fails when the two drift apart),
// on a base layer holding this machine's Node runtime (no outside registry is reachable).
import { existsSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import {
  folderEntries,
  hostNodeEntries,
  ociImageOf,
  parseImageRef,
  pushImage,
  repositoryRoot,
  tarLayer,
  type ImageRunConfig,
  type LayerEntry,
  type OciImage,
} from '../localcluster/index.ts';

/** One COPY of the final stage: from the build stage (`from: 'build'`) or the context. */
export interface ImageCopy {
  readonly from?: string;
  readonly sources: readonly string[];
  readonly target: string;
}

/** The Dockerfile's final stage as data. */
export interface ImageStage {
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly copies: readonly ImageCopy[];
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly expose: readonly string[];
}

/**
 * The node flags the manager runs with: the image's ENTRYPOINT, `npm start`, and every test
 * and bench that starts it as users do. Chosen for a small heap at little CPU (figures:
 * bench/README.md, "Garbage, live set and node flags").
 */
export const MANAGER_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=2',
  '--heap-growing-percent=30',
  '--no-memory-reducer',
];

/** What the Dockerfile's final stage does, in its order. */
export const PLANWRIGHT_IMAGE: ImageStage = {
  workdir: '/app',
  env: { NODE_ENV: 'production' },
  copies: [
    { from: 'build', sources: ['/src/dist'], target: './dist' },
    { sources: ['package.json'], target: './' },
    { sources: ['manifests'], target: './manifests' },
  ],
  user: '65532:65532',
  expose: ['9443'],
  entrypoint: ['node', ...MANAGER_NODE_FLAGS, 'dist/main.js', 'start'],
};

/** The name the manifests' Deployment runs (`planwright init` without --image). */
export const DEFAULT_IMAGE = 'planwright:dev';

/** The image cannot be built from this checkout. */
export class ImageBuildError extends Error {
  override readonly name = 'ImageBuildError';
}

/** Where a COPY puts a source, Docker's rule: a target ending in / is a folder to go into. */
export function copyDestination(stage: ImageStage, copy: ImageCopy, source: string): string {
  const target = posix.resolve(stage.workdir, copy.target);
  return copy.target.endsWith('/') ? posix.join(target, basename(source)) : target;
}

/**
 * The files of the final stage above the base: the WORKDIR and each COPY, its build-stage
 * sources taken from this checkout's `npm run build` output.
 */
export async function applicationEntries(input: {
  readonly stage?: ImageStage;
  readonly root?: string;
}): Promise<LayerEntry[]> {
  const stage = input.stage ?? PLANWRIGHT_IMAGE;
  const root = input.root ?? repositoryRoot();
  const entries: LayerEntry[] = [{ kind: 'dir', path: stage.workdir, mode: 0o755 }];
  for (const copy of stage.copies) {
    for (const source of copy.sources) {
      const dest = copyDestination(stage, copy, source);
      let host: string;
      if (copy.from === undefined) host = join(root, source);
      else if (copy.from === 'build' && source === '/src/dist') host = join(root, 'dist');
      else {
        throw new ImageBuildError(
          `COPY --from=${copy.from} ${source}: src/cli/image.ts does not know what the build stage puts there`,
        );
      }
      if (!existsSync(host)) {
        throw new ImageBuildError(
          `COPY ${source}: ${host} does not exist; run \`npm run build\` first`,
        );
      }
      entries.push(...(await folderEntries(host, dest)));
    }
  }
  return entries;
}

/** The image: this machine's Node runtime, then the final stage's files, and its config. */
export async function buildPlanwrightImage(
  input: { readonly root?: string; readonly nodeExecutable?: string } = {},
): Promise<OciImage> {
  const stage = PLANWRIGHT_IMAGE;
  const base = await tarLayer(await hostNodeEntries(input.nodeExecutable));
  const app = await tarLayer(
    await applicationEntries({ stage, ...(input.root ? { root: input.root } : {}) }),
  );
  return ociImageOf(runConfigOf(stage), [base, app]);
}

/** The OCI config of a stage: what it runs, as whom, where, with which environment. */
export function runConfigOf(stage: ImageStage): ImageRunConfig {
  return {
    entrypoint: stage.entrypoint,
    env: Object.entries(stage.env).map(([k, v]) => `${k}=${v}`),
    workdir: stage.workdir,
    user: stage.user,
    exposedPorts: stage.expose.map(Number),
  };
}

/**
 * Builds the image (unless `image` is one built already: a test run builds it once for all its
 * clusters) and pushes it to a registry (the local cluster's) as `reference`.
 */
export async function pushPlanwrightImage(input: {
  readonly registry: string;
  readonly reference?: string;
  readonly root?: string;
  readonly image?: OciImage;
}): Promise<{ readonly reference: string; readonly bytes: number }> {
  const reference = input.reference ?? DEFAULT_IMAGE;
  const { repository, reference: tag } = parseImageRef(reference);
  if (tag.startsWith('sha256:')) {
    throw new ImageBuildError(`--tag ${reference}: give a tag, not a digest`);
  }
  const image = input.image ?? (await buildPlanwrightImage(input.root ? { root: input.root } : {}));
  await pushImage({ registry: input.registry, repository, tags: [tag], image });
  const bytes = image.layers.reduce((n, l) => n + l.length, image.config.length);
  return { reference, bytes };
}
