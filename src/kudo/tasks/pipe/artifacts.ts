/**
 * The Secrets and ConfigMaps a Pipe task writes, with KUDO's names and data layout: a `file`
 * becomes one key (its base name) — in a ConfigMap under `binaryData`, never `data` — and an
 * `envFile` one key per variable (`data`; base64 in a Secret). The other map stays absent:
 * KUDO's was empty, and its JSON (what the dependencies hash of KUDO covered) omitted it.
 */
import { posix } from 'node:path';
import type { ApplyObject } from '../../../kube/index.ts';
import { parseEnvFile } from './env-file.ts';
import type { PipeFile } from './spec.ts';

export function pipeArtifact(file: PipeFile, name: string, bytes: Buffer): ApplyObject {
  const metadata = { name };
  if (file.format === 'file') {
    const key = posix.basename(file.path);
    const b64 = bytes.toString('base64');
    return file.kind === 'Secret'
      ? {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata,
          type: 'Opaque',
          data: Object.fromEntries([[key, b64]]),
        }
      : {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata,
          binaryData: Object.fromEntries([[key, b64]]),
        };
  }
  const vars = parseEnvFile(bytes, file.path);
  if (file.kind === 'Secret') {
    // fromEntries defines own properties: a variable named __proto__ stays a key.
    const data = Object.fromEntries(
      [...vars].map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
    );
    return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data };
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: Object.fromEntries(vars) };
}
