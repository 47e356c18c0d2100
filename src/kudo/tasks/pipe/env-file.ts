/**
 * A pipe `envFile`: one variable per line, `KEY=VALUE`, the rules kubectl's --from-env-file
 * and KUDO used — a UTF-8 byte-order mark on the first line is dropped, leading whitespace is
 * trimmed, blank lines and `#` comments are skipped, KEY is the text before the first `=` and
 * must be a valid environment variable name, VALUE is the rest verbatim. Unlike KUDO (which
 * retried forever), every problem is reported at once, with its line.
 */

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** Go's unicode.IsSpace (JavaScript's \s differs: it has U+FEFF, lacks U+0085). */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

export class EnvFileError extends Error {
  override readonly name = 'EnvFileError';
}

function lines(text: string): string[] {
  // bufio.ScanLines: split at \n, drop one trailing \r; no empty last line after a final \n.
  const out = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (out.length > 0 && out[out.length - 1] === '' && text.endsWith('\n')) out.pop();
  return out;
}

/** The variables of an env file's bytes, in order (a repeated key keeps its last value). */
export function parseEnvFile(bytes: Uint8Array, path: string): Map<string, string> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new EnvFileError(`env file ${path} is not valid UTF-8 text`);
  }
  const out = new Map<string, string>();
  const problems: string[] = [];
  lines(text).forEach((raw, i) => {
    let line = i === 0 && raw.startsWith('\ufeff') ? raw.slice(1) : raw;
    line = line.replace(GO_SPACE, '');
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    if (eq < 0) {
      problems.push(`line ${i + 1} has no "=" (expected KEY=VALUE)`);
      return;
    }
    const key = line.slice(0, eq);
    if (!ENV_NAME.test(key) || key === '.' || key.startsWith('..')) {
      problems.push(
        `line ${i + 1}: ${JSON.stringify(key)} is not a valid variable name (letters, digits, '-', '_', '.', not starting with a digit or "..")`,
      );
      return;
    }
    out.set(key, line.slice(eq + 1));
  });
  if (problems.length > 0) {
    throw new EnvFileError(`env file ${path}: ${problems.slice(0, 5).join('; ')}`);
  }
  return out;
}
