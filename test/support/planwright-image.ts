// Planwright's image as the e2e tests run it: built once per test run by the product's own
// daemonless build (src/cli/image.ts, what `npm run image:build` runs) and pushed to each
// cluster's registry that needs it. The runner (test/runner) builds it before the e2e files
// start and names its folder in PLANWRIGHT_TEST_IMAGE_DIR; a test file run on its own builds
// it in its process, once.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildPlanwrightImage, pushPlanwrightImage } from '../../src/cli/image.ts';
import type { OciImage } from '../../src/localcluster/index.ts';

export const TEST_IMAGE_DIR_ENV = 'PLANWRIGHT_TEST_IMAGE_DIR';

interface StoredImage {
  readonly layers: number;
}

/** Builds the image and stores it in `dir` (config.json, layer-<n>.tar, image.json last). */
export async function writeTestImage(dir: string): Promise<void> {
  const image = await buildPlanwrightImage();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), image.config);
  for (const [i, layer] of image.layers.entries()) {
    await writeFile(join(dir, `layer-${i}.tar`), layer);
  }
  // Written last and renamed into place: its presence says the image is complete.
  const stored: StoredImage = { layers: image.layers.length };
  await writeFile(join(dir, 'image.json.partial'), JSON.stringify(stored));
  await rename(join(dir, 'image.json.partial'), join(dir, 'image.json'));
}

async function readTestImage(dir: string): Promise<OciImage> {
  const stored = JSON.parse(await readFile(join(dir, 'image.json'), 'utf8')) as StoredImage;
  const layers: Buffer[] = [];
  for (let i = 0; i < stored.layers; i++) layers.push(await readFile(join(dir, `layer-${i}.tar`)));
  return { config: await readFile(join(dir, 'config.json')), layers };
}

let built: Promise<OciImage> | undefined;

/** The run's image: the runner's, or built here once. */
export function testImage(): Promise<OciImage> {
  const dir = process.env[TEST_IMAGE_DIR_ENV];
  built ??=
    dir && existsSync(join(dir, 'image.json')) ? readTestImage(dir) : buildPlanwrightImage();
  return built;
}

/** Pushes the run's image to `registry` as the default reference (planwright:dev). */
export async function pushTestImage(
  registry: string,
): Promise<{ readonly reference: string; readonly bytes: number }> {
  return pushPlanwrightImage({ registry, image: await testImage() });
}
