// Flat config: typescript-eslint's type-aware rules on src/, test/ and bench/.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layer table of docs/architecture.md, from its one source docs/layers.json (which
// test/unit/architecture.test.ts also reads, checking the whole import graph, cycles between
// files and between folders included): what each folder of src/ must not import, and imports
// into another folder only through its index.ts (each src/kudo sub-folder has one).
const TABLE = JSON.parse(readFileSync(new URL('./docs/layers.json', import.meta.url), 'utf8'));
const FORBIDDEN = TABLE.layers;
const LAYERS = Object.keys(FORBIDDEN);
const KUDO = TABLE.kudoStack.flat();
/** app.ts and installation.ts are layers of one file. */
const ONE_FILE = new Set(['app', 'installation']);
const escaped = (layer) => (ONE_FILE.has(layer) ? `${layer}\\.ts` : layer);
const shown = (layer) => (ONE_FILE.has(layer) ? `${layer}.ts` : layer);

/** The import patterns a file of `layer` (and of `kudoFolder` inside src/kudo) may not use. */
function patterns(layer, kudoFolder) {
  const others = LAYERS.filter((l) => l !== layer && !['kudo', 'cli', ...ONE_FILE].includes(l));
  const found = [
    {
      regex: `^(\\.{1,2}/)+(${others.join('|')})/(?!index\\.ts$)`,
      message: 'Import another layer through its index.ts (docs/architecture.md).',
    },
  ];
  if (layer !== 'kudo')
    found.push({
      regex: '^(\\.{1,2}/)+kudo/[^/]+/(?!index\\.ts$)',
      message: 'Import a src/kudo sub-folder through its index.ts (docs/architecture.md).',
    });
  if (FORBIDDEN[layer].length > 0)
    found.push({
      regex: `^(\\.{1,2}/)+(${FORBIDDEN[layer].map(escaped).join('|')})(/|$)`,
      message: `src/${layer}/ must not import ${FORBIDDEN[layer].map(shown).join(', ')} (docs/architecture.md).`,
    });
  if (kudoFolder !== undefined) {
    const level = TABLE.kudoStack.findIndex((l) => l.includes(kudoFolder));
    const higher = TABLE.kudoStack.slice(level + 1).flat();
    const siblings = KUDO.filter((f) => f !== kudoFolder);
    found.push({
      regex: `^(\\.{1,2}/)+(${siblings.join('|')})/(?!index\\.ts$)`,
      message: 'Import another src/kudo sub-folder through its index.ts (docs/architecture.md).',
    });
    if (higher.length > 0)
      found.push({
        regex: `^(\\.{1,2}/)+(${higher.join('|')})(/|$)`,
        message: `src/kudo/${kudoFolder}/ must not import ${higher.join(', ')} (docs/architecture.md).`,
      });
  }
  return found;
}

const rule = (found) => ({ 'no-restricted-imports': ['error', { patterns: found }] });
const layerRules = [
  ...LAYERS.map((layer) => ({
    files: ONE_FILE.has(layer) ? [`src/${layer}.ts`] : [`src/${layer}/**/*.ts`],
    rules: rule(patterns(layer)),
  })),
  // Later entries replace the rule's options for the files they match: each kudo sub-folder's
  // patterns include the kudo layer's.
  ...KUDO.map((folder) => ({
    files: [`src/kudo/${folder}/**/*.ts`],
    rules: rule(patterns('kudo', folder)),
  })),
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'certs/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // More than four positional parameters are hard to read at the call site: pass a context
    // object.
    files: ['src/kudo/**/*.ts'],
    rules: { '@typescript-eslint/max-params': ['error', { max: 4 }] },
  },
  {
    // A function of more than 80 lines does more than one job: split it into named steps. The
    // few allowed say why on the line before (`-- <reason>`), and bench/code-figures.ts lists
    // them.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
    },
  },
  ...layerRules,
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off' },
  },
);
