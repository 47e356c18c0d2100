/**
 * Files mode (cert-manager): serve `tls.crt`/`tls.key` from a directory — typically a mounted
 * Secret that cert-manager renews. Kubelet updates such mounts by swapping a `..data`
 * symlink, which shows up as rename/remove events on the directory (not changes of the
 * files), so the directory is watched *and* polled; every change is re-read, validated as a
 * matching pair, and handed to the server for a hot swap. A broken pair is logged and the
 * previous certificate kept.
 *
 * See examples/api/server.ts.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { certificateNotAfter } from '../../pki/index.ts';
import { ServerConfigError, TlsError } from '../errors.ts';
import type { ProbeCheck } from '../../runtime/index.ts';
import type { CertificateSource, ServingCertificate } from './source.ts';

export interface FileCertificateSourceOptions {
  readonly directory: string;
  readonly logger: Logger;
  readonly certFile?: string;
  readonly keyFile?: string;
  /** Safety-net re-read interval, for file systems whose events are unreliable. Default 10 s. */
  readonly pollIntervalMs?: number;
}

export class FileCertificateSource implements CertificateSource {
  private readonly directory: string;
  private readonly logger: Logger;
  private readonly certPath: string;
  private readonly keyPath: string;
  private readonly pollIntervalMs: number;
  private readonly listeners: Array<(certificate: ServingCertificate) => void> = [];
  private certificate: ServingCertificate | undefined;
  private loading: Promise<void> | undefined;
  private reloadAgain = false;

  constructor(options: FileCertificateSourceOptions) {
    if (!options.directory) throw new ServerConfigError('a directory is required', 'directory');
    if (!options.logger) throw new ServerConfigError('a pino logger is required', 'logger');
    this.directory = options.directory;
    this.logger = options.logger.child({ component: 'file-tls', directory: options.directory });
    this.certPath = join(options.directory, options.certFile ?? 'tls.crt');
    this.keyPath = join(options.directory, options.keyFile ?? 'tls.key');
    this.pollIntervalMs = options.pollIntervalMs ?? 10_000;
    if (!(this.pollIntervalMs > 0)) {
      throw new ServerConfigError(`must be positive, got ${this.pollIntervalMs}`, 'pollIntervalMs');
    }
  }

  start(signal: AbortSignal): void {
    let watcher: FSWatcher | undefined;
    const ensureWatcher = (): void => {
      if (watcher || signal.aborted) return;
      try {
        watcher = watch(this.directory, { persistent: false }, () => this.reload());
        watcher.on('error', (err) => {
          this.logger.warn(
            { err },
            'directory watch failed; polling until it can be re-established',
          );
          watcher?.close();
          watcher = undefined;
        });
      } catch (err) {
        this.logger.warn({ err }, 'cannot watch directory yet');
      }
    };
    ensureWatcher();
    const timer = setInterval(() => {
      ensureWatcher();
      this.reload();
    }, this.pollIntervalMs);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        watcher?.close();
      },
      { once: true },
    );
    this.reload();
  }

  current(): ServingCertificate | undefined {
    return this.certificate;
  }

  onCertificate(listener: (certificate: ServingCertificate) => void): void {
    this.listeners.push(listener);
  }

  readinessChecks(): Readonly<Record<string, ProbeCheck>> {
    return { 'tls-certificate-loaded': () => this.certificate !== undefined };
  }

  /** Re-reads the pair; calls coalesce so a burst of events means one or two reads. */
  reload(): void {
    if (this.loading) {
      this.reloadAgain = true;
      return;
    }
    this.loading = this.load()
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'certificate files not usable yet');
      })
      .finally(() => {
        this.loading = undefined;
        if (this.reloadAgain) {
          this.reloadAgain = false;
          this.reload();
        }
      });
  }

  private async load(): Promise<void> {
    let certPem: string;
    let keyPem: string;
    try {
      [certPem, keyPem] = await Promise.all([
        readFile(this.certPath, 'utf8'),
        readFile(this.keyPath, 'utf8'),
      ]);
    } catch (err) {
      throw new TlsError(`cannot read tls.crt/tls.key`, this.directory, { cause: err });
    }
    if (this.certificate?.certPem === certPem && this.certificate.keyPem === keyPem) return;
    try {
      // Throws when the key does not match the certificate (e.g. read mid-update).
      createSecureContext({ cert: certPem, key: keyPem });
    } catch (err) {
      throw new TlsError(
        `tls.crt and tls.key do not form a usable pair: ${err instanceof Error ? err.message : String(err)}`,
        this.directory,
        { cause: err },
      );
    }
    const certificate: ServingCertificate = {
      certPem,
      keyPem,
      notAfter: certificateNotAfter(certPem),
    };
    this.certificate = certificate;
    this.logger.info(
      { notAfter: certificate.notAfter.toISOString() },
      'certificate loaded from files',
    );
    for (const listener of this.listeners) listener(certificate);
  }
}
