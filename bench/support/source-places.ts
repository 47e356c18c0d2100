// Puts the places of a bundled, minified build back to the sources: a profile's frame in
// dist/chunks/chunk-….js (one long line per chunk since the bundle is whitespace-minified)
// says nothing about which module it is, so the summaries that group by folder read its
// original file and line from the chunk's source map (node:module's SourceMap). Frames of
// scripts without a map are left as they are, and so are frames of packages: the build keeps
// only our sources' mappings (scripts/build.mjs).
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Place {
  readonly url: string;
  /** 0-based, as in V8's call frames. */
  readonly lineNumber: number;
}

/** Source maps by script URL, loaded on first use; null where a script has none. */
export class SourcePlaces {
  readonly #maps = new Map<string, { map: SourceMap; dir: string } | null>();

  /**
   * Puts a V8 call frame (CPU or heap profile) of the bundle back at its source place, in
   * place: every summary groups frames by the folder their code lives in.
   */
  restore(frame: { url: string; lineNumber: number; columnNumber?: number }): void {
    Object.assign(frame, this.place(frame.url, frame.lineNumber, frame.columnNumber ?? 0));
  }

  /** The original place of a frame at (line, column) of `url`, or the frame's own. */
  place(url: string, lineNumber: number, columnNumber: number): Place {
    const loaded = this.#load(url);
    if (!loaded) return { url, lineNumber };
    const entry = loaded.map.findEntry(lineNumber, columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (entry.originalSource === undefined || entry.originalLine === undefined)
      return { url, lineNumber };
    return { url: resolve(loaded.dir, entry.originalSource), lineNumber: entry.originalLine };
  }

  #load(url: string): { map: SourceMap; dir: string } | null {
    const known = this.#maps.get(url);
    if (known !== undefined) return known;
    let loaded: { map: SourceMap; dir: string } | null = null;
    // CPU profiles name scripts by file URL, heap profiles by path.
    const file = url.startsWith('file://') ? fileURLToPath(url) : url;
    if (file.startsWith('/') && file.endsWith('.js')) {
      try {
        const payload = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<
          typeof SourceMap
        >[0];
        loaded = { map: new SourceMap(payload), dir: dirname(file) };
      } catch {
        loaded = null; // no map beside it: the frame keeps its place
      }
    }
    this.#maps.set(url, loaded);
    return loaded;
  }
}
