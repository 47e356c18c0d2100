// Where containerd looks for an image reference: which registry host, which repository path
// and which tag or digest (the docker reference grammar's defaults: docker.io, library/, latest).
import { MIRRORED_REGISTRIES } from './containerd-config.ts';

export interface ImageLocation {
  readonly host: string;
  readonly repository: string;
  /** A tag, or a digest (`sha256:…`). */
  readonly reference: string;
}

export function parseImageRef(image: string): ImageLocation {
  const [name = '', digest] = image.split('@');
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  const hasHost = first.includes('.') || first.includes(':') || first === 'localhost';
  const host = hasHost ? first : 'docker.io';
  let path = hasHost ? name.slice(slash + 1) : name;
  let tag = 'latest';
  const colon = path.lastIndexOf(':');
  if (colon > path.lastIndexOf('/')) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
  }
  if (host === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  return { host, repository: path, reference: digest ?? tag };
}

/** Whether containerd of a real node sends this image's pull to the local registry. */
export function pulledLocally(location: ImageLocation): boolean {
  return MIRRORED_REGISTRIES.includes(location.host);
}
