// cowsay (../shared/kudo-packages) as shipped, but for its Pipe pod's init command: that one
// downloads the page from cowsay.morecode.org, which no pod of the local cluster can reach
// (pods reach nothing beyond their node). Built at test time from the shared package, so
// everything else — operator.yaml, params, the Deployment, the Pipe task — is cowsay's own.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUDO_PACKAGES } from './kudo.ts';

/** The line of cowsay's templates/pipe-pod.yaml that fetches the page. */
const FETCH = /^(\s*- )wget -O \/tmp\/index\.html 'http:\/\/cowsay\.morecode\.org\/[^']*'\s*$/m;

export interface OfflineCowsay {
  /** The package folder, for loadPackage or `kubectl kudo install`. */
  readonly dir: string;
  remove(): Promise<void>;
}

/** A copy of cowsay whose init container runs `command` (a shell line) instead of the wget. */
export async function offlineCowsay(command: string): Promise<OfflineCowsay> {
  const dir = await mkdtemp(join(tmpdir(), 'planwright-cowsay-'));
  await cp(join(KUDO_PACKAGES, 'cowsay'), dir, { recursive: true });
  const podFile = join(dir, 'templates', 'pipe-pod.yaml');
  const pod = await readFile(podFile, 'utf8');
  if (!FETCH.test(pod)) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `${podFile}: cowsay's wget line is not there any more; update offline-cowsay.ts`,
    );
  }
  // A JSON string is a YAML double-quoted scalar.
  await writeFile(
    podFile,
    pod.replace(FETCH, (_line, item: string) => `${item}${JSON.stringify(command)}`),
  );
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
