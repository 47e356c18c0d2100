// The daemonless image build (src/cli/image.ts) against the Dockerfile's final stage, parsed
// with dockerfile-ast: the repository's agree, and each kind of drift is named. The layers'
// contents are checked on a small checkout-shaped folder (the real build is run by the e2e
// tests, whose replicas start from it).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extract } from 'tar-stream';
import { applicationEntries, PLANWRIGHT_IMAGE, runConfigOf } from '../../../src/cli/image.ts';
import { ociImageOf, tarLayer } from '../../../src/localcluster/index.ts';
import { sharedLibraries } from '../../../src/localcluster/nodes/host-node-layer.ts';
import { DOCKERFILE, finalStage, imageDrift } from '../../support/dockerfile.ts';

const text = readFileSync(DOCKERFILE, 'utf8');

interface TarEntry {
  readonly name: string;
  readonly type: string;
  readonly mode: number;
  readonly uid: number;
  readonly linkname: string | null;
}

async function tarEntries(layer: Buffer): Promise<TarEntry[]> {
  const out: TarEntry[] = [];
  const ex = extract();
  ex.on('entry', (header, stream, next) => {
    out.push({
      name: header.name,
      type: header.type ?? 'file',
      mode: header.mode ?? 0,
      uid: header.uid ?? -1,
      linkname: header.linkname ?? null,
    });
    stream.on('end', next);
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(layer);
  await done;
  return out;
}

describe('the daemonless image and the Dockerfile', () => {
  it('agree on WORKDIR, USER, ENTRYPOINT, EXPOSE, ENV and every COPY', () => {
    expect(imageDrift(text)).toEqual([]);
    const stage = finalStage(text);
    expect(PLANWRIGHT_IMAGE.copies).toEqual(stage.copies);
  });

  it.each([
    ['USER', ['USER 65532:65532', 'USER 1000:1000'], 'USER: the Dockerfile has "1000:1000"'],
    ['WORKDIR', ['WORKDIR /app', 'WORKDIR /srv'], 'WORKDIR: the Dockerfile has "/srv"'],
    [
      'ENTRYPOINT',
      ['"dist/main.js", "start"]', '"dist/main.js", "start", "--verbose"]'],
      'ENTRYPOINT: the Dockerfile has',
    ],
    ['ENV', ['ENV NODE_ENV=production', 'ENV NODE_ENV=production TZ=UTC'], 'ENV: the Dockerfile'],
    ['another COPY', ['COPY package.json ./', 'COPY package.json README.md ./'], 'COPY:'],
    ['a COPY target', ['COPY manifests ./manifests', 'COPY manifests ./m'], 'COPY:'],
    ['EXPOSE', ['EXPOSE 9443', 'EXPOSE 9443 9090'], 'EXPOSE:'],
  ])('names a drift of %s', (_what, [from, to], message) => {
    expect(text).toContain(from);
    const drifted = text.replace(from ?? '', to ?? '');
    expect(imageDrift(drifted).join('\n')).toContain(message);
  });

  it('configures the image as the final stage runs: user, workdir, environment, entrypoint', () => {
    const stage = finalStage(text);
    const image = ociImageOf(runConfigOf(PLANWRIGHT_IMAGE), [Buffer.from('a'), Buffer.from('b')]);
    const config = JSON.parse(image.config.toString()) as {
      config: {
        User: string;
        WorkingDir: string;
        Env: string[];
        Entrypoint: string[];
        ExposedPorts: Record<string, unknown>;
      };
      rootfs: { diff_ids: string[] };
    };
    expect(config.config.User).toBe(stage.user);
    expect(config.config.WorkingDir).toBe(stage.workdir);
    expect(config.config.Entrypoint).toEqual(stage.entrypoint);
    for (const [name, value] of Object.entries(stage.env)) {
      expect(config.config.Env).toContain(`${name}=${value}`);
    }
    // `node` is found on the image's PATH, where the base layer puts it.
    expect(config.config.Env.find((e) => e.startsWith('PATH='))).toContain('/usr/local/bin');
    expect(Object.keys(config.config.ExposedPorts)).toEqual(stage.expose.map((p) => `${p}/tcp`));
    expect(config.rootfs.diff_ids).toHaveLength(2);
  });

  it('puts each copied path where Docker would, owned by root, links kept', async () => {
    const root = await mkdtemp(join(tmpdir(), 'pw-image-test-'));
    try {
      await mkdir(join(root, 'dist', 'cli'), { recursive: true });
      await writeFile(join(root, 'dist', 'main.js'), 'x');
      await writeFile(join(root, 'dist', 'cli', 'run.js'), 'y');
      await symlink('main.js', join(root, 'dist', 'link.js'));
      await writeFile(join(root, 'package.json'), '{}');
      await mkdir(join(root, 'manifests', 'crds'), { recursive: true });
      await writeFile(join(root, 'manifests', 'crds', 'a.yaml'), 'a: 1');
      const entries = await tarEntries(
        await tarLayer(await applicationEntries({ stage: PLANWRIGHT_IMAGE, root })),
      );
      expect(entries.map((e) => e.name)).toEqual([
        'app/',
        'app/dist/',
        'app/dist/cli/',
        'app/dist/cli/run.js',
        'app/dist/link.js',
        'app/dist/main.js',
        'app/manifests/',
        'app/manifests/crds/',
        'app/manifests/crds/a.yaml',
        'app/package.json',
      ]);
      expect(entries.every((e) => e.uid === 0)).toBe(true);
      expect(entries.find((e) => e.name === 'app/dist/link.js')).toMatchObject({
        type: 'symlink',
        linkname: 'main.js',
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('takes every library ldd names for the Node runtime, the loader included', () => {
    const ldd = [
      '\tlinux-vdso.so.1 (0x00007fff)',
      '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f)',
    ].join('\n');
    expect(sharedLibraries(ldd)).toEqual([
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
  });
});
