/**
 * `$KUDO_HOME/repository/repositories.yaml`: the configured package repositories and the
 * current one (`context`). Created on demand with the community repository (KUDO silently fell
 * back to it when the file was missing); written atomically (temp file + rename).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { RepositoryError } from './errors.ts';
import { DEFAULT_REPOSITORY, type RepositoryConfig } from './repository.ts';
import { NodeReader, parsePackageYaml } from './yaml-nodes.ts';

export const REPOSITORIES_VERSION = 'v1';

export interface RepositoriesFile {
  readonly repoVersion: string;
  /** Name of the current repository. */
  readonly context: string;
  readonly repositories: readonly RepositoryConfig[];
}

/** `--home`, else `$KUDO_HOME`, else `~/.kudo`. */
export function kudoHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  const fromEnv = env['KUDO_HOME'];
  return fromEnv ? fromEnv : join(homedir(), '.kudo');
}

export function defaultRepositories(): RepositoriesFile {
  return {
    repoVersion: REPOSITORIES_VERSION,
    context: DEFAULT_REPOSITORY.name,
    repositories: [{ ...DEFAULT_REPOSITORY }],
  };
}

function parseRepositories(text: string, path: string): RepositoriesFile {
  try {
    const r = new NodeReader(parsePackageYaml(text));
    let repoVersion = REPOSITORIES_VERSION;
    let context = '';
    const repositories: RepositoryConfig[] = [];
    for (const [key, value, field] of r.map(r.root, '') ?? []) {
      if (key === 'repoVersion') repoVersion = r.string(value, field) ?? REPOSITORIES_VERSION;
      else if (key === 'context') context = r.string(value, field) ?? '';
      else if (key === 'repositories') {
        (r.seq(value, field) ?? []).forEach((item, i) => {
          let name = '';
          let url = '';
          for (const [k, v, f] of r.map(item, `${field}[${i}]`) ?? []) {
            if (k === 'name') name = r.string(v, f) ?? '';
            else if (k === 'url') url = r.string(v, f) ?? '';
          }
          repositories.push({ name, url });
        });
      }
    }
    return { repoVersion, context, repositories };
  } catch (err) {
    throw new RepositoryError(
      `could not read repositories file ${path}: ${(err as Error).message}; fix it or delete it to start again from the default`,
      { source: path, cause: err },
    );
  }
}

/** Reads and changes the repositories file below a KUDO home folder. */
export class RepositoryStore {
  readonly path: string;

  constructor(readonly home: string) {
    this.path = join(home, 'repository', 'repositories.yaml');
  }

  /** The file's content; writes the default file first when there is none. */
  async load(): Promise<RepositoriesFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') {
        throw new RepositoryError(
          `could not read repositories file ${this.path}: ${(err as Error).message}`,
          {
            source: this.path,
            cause: err,
          },
        );
      }
      const initial = defaultRepositories();
      await this.save(initial);
      return initial;
    }
    return parseRepositories(text, this.path);
  }

  async save(file: RepositoriesFile): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    const body = {
      repoVersion: file.repoVersion,
      context: file.context,
      repositories: file.repositories.map((r) => ({ name: r.name, url: r.url })),
    };
    await writeFile(temp, stringify(body, { indentSeq: false }), { mode: 0o644 });
    await rename(temp, this.path);
  }

  /**
   * The repository to use: `--repo` when given, else the current context. KUDO's message when
   * it is not configured.
   */
  async repository(name?: string): Promise<RepositoryConfig> {
    const file = await this.load();
    const wanted = name ? name : file.context;
    const found = file.repositories.find((r) => r.name === wanted);
    if (!found) {
      throw new RepositoryError(
        `unable to find repository for ${wanted}; configured: ${file.repositories.map((r) => r.name).join(', ') || 'none'} (see \`repo list\`, \`repo add\`)`,
        { source: this.path },
      );
    }
    return found;
  }

  /** Adds a repository (the caller validates its index first). */
  async add(config: RepositoryConfig): Promise<RepositoriesFile> {
    const file = await this.load();
    if (file.repositories.some((r) => r.name === config.name)) {
      throw new RepositoryError(
        `repository ${config.name} already exists; remove it first with \`repo remove ${config.name}\``,
        { source: this.path },
      );
    }
    const next = {
      ...file,
      repositories: [...file.repositories, { name: config.name, url: config.url }],
    };
    await this.save(next);
    return next;
  }

  async remove(name: string): Promise<RepositoriesFile> {
    const file = await this.loadNaming(name, `no repository found with name: ${name}`);
    const next = { ...file, repositories: file.repositories.filter((r) => r.name !== name) };
    await this.save(next);
    return next;
  }

  /** Makes `name` the current repository (`repo context`). */
  async setContext(name: string): Promise<RepositoriesFile> {
    const file = await this.loadNaming(name, `no config found with name: ${name}`);
    const next = { ...file, context: name };
    await this.save(next);
    return next;
  }

  /** The file, which must list `name` (else `missing`, KUDO's text for the command). */
  private async loadNaming(name: string, missing: string): Promise<RepositoriesFile> {
    const file = await this.load();
    if (!file.repositories.some((r) => r.name === name)) {
      throw new RepositoryError(missing, { source: this.path });
    }
    return file;
  }
}
