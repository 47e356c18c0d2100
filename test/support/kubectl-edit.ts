// A scripted EDITOR for `kubectl edit` run without a terminal. The first time kubectl opens
// the editor it applies the user's edit; when kubectl reopens the file (it does so after a 422
// Invalid with field causes), the script keeps a copy for assertions and leaves the file
// unchanged, so kubectl gives up.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ScriptedEditor {
  /** EDITOR and KUBE_EDITOR pointing at the script: pass as kubectl's environment. */
  readonly env: NodeJS.ProcessEnv;
  /** How many times kubectl opened the editor. */
  calls(): Promise<number>;
  /** The file as kubectl reopened it, with its reason header and the user's edit. */
  reopened(): Promise<string>;
}

/** `firstEdit` is a shell command that edits the file "$1" (e.g. a `sed -i` line). */
export async function scriptedEditor(firstEdit: string): Promise<ScriptedEditor> {
  const dir = await mkdtemp(join(tmpdir(), 'pw-edit-'));
  const editor = join(dir, 'editor.sh');
  await writeFile(
    editor,
    [
      '#!/bin/sh',
      `n=$(cat "${dir}/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/count"`,
      'if [ "$n" -eq 1 ]; then',
      `  ${firstEdit}`,
      'else',
      `  cp "$1" "${dir}/reopened.yaml"`,
      'fi',
      '',
    ].join('\n'),
  );
  await chmod(editor, 0o755);
  return {
    env: { EDITOR: editor, KUBE_EDITOR: editor },
    calls: async () => Number((await readFile(join(dir, 'count'), 'utf8')).trim()),
    reopened: () => readFile(join(dir, 'reopened.yaml'), 'utf8'),
  };
}
