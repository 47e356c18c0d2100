// What a render job can produce besides objects: a pipe pod (no name: the engine names it),
// and a KudoOperator parameter file (a mapping whose values become parameter strings,
// rendered without .PlanName, .PhaseName, .StepName and .Pipes, as KUDO did); and `.Pipes`
// in object templates.
import { describe, expect, it } from '@jest/globals';
import {
  RenderError,
  TemplateCache,
  renderJob,
  type RenderJob,
} from '../../../../src/kudo/render/index.ts';

const job = (text: string, extra: Partial<RenderJob> = {}): RenderJob => ({
  key: `k/${text}`,
  template: 't.yaml',
  text,
  parameters: [
    { name: 'GREETING', type: 'string', raw: 'hello' },
    { name: 'N', type: 'integer', raw: '3' },
    { name: 'LIST', type: 'array', raw: '[a, b]' },
  ],
  scalars: {
    Name: 'web',
    Namespace: 'apps',
    OperatorName: 'parent',
    OperatorVersion: '0.1.0',
    AppVersion: '1.0.0',
    PlanName: 'deploy',
    PhaseName: 'main',
    StepName: 'child',
  },
  maxOutputChars: 100_000,
  ...extra,
});

const render = (j: RenderJob) => renderJob(new TemplateCache(), j);

describe('render kinds', () => {
  it('.Pipes maps pipe keys to artifact names; a missing key is an error', () => {
    const text =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  cm: {{ .Pipes.indexHtml }}\n';
    const pipes = { indexHtml: 'web.deploy.main.gen.genwww.indexhtml' };
    expect(render(job(text, { pipes })).objects[0]?.['data']).toEqual({
      cm: 'web.deploy.main.gen.genwww.indexhtml',
    });
    expect(() => render(job(text))).toThrow(RenderError);
  });

  it('a pod needs no name, and must be one document', () => {
    const pod = 'apiVersion: v1\nkind: Pod\nspec:\n  initContainers: []\n';
    expect(render(job(pod, { output: 'pod' })).objects).toEqual([
      { apiVersion: 'v1', kind: 'Pod', spec: { initContainers: [] } },
    ]);
    expect(() => render(job(`${pod}---\n${pod}`, { output: 'pod' }))).toThrow(
      'must render exactly one document',
    );
    expect(() => render(job(pod))).toThrow('lacks apiVersion, kind or metadata.name');
  });

  it('a parameter file becomes parameter strings (YAML text for lists and maps)', () => {
    const file =
      'MESSAGE: "{{ .Params.GREETING }} from {{ .Name }}"\nREPLICAS: {{ .Params.N }}\nFLAG: true\nLIST: {{ toYaml .Params.LIST | nindent 2 }}\nMAP: {a: 1}\n';
    expect(render(job(file, { output: 'parameters' }))).toMatchObject({
      objects: [],
      parameters: {
        MESSAGE: 'hello from web',
        REPLICAS: '3',
        FLAG: 'true',
        LIST: '- a\n- b\n',
        MAP: 'a: 1\n',
      },
    });
  });

  it('a parameter file sees no plan, phase, step or pipes, and may not hold nulls', () => {
    for (const v of ['.PlanName', '.PhaseName', '.StepName', '.Pipes.x']) {
      expect(() =>
        render(job(`A: {{ ${v} }}\n`, { output: 'parameters', pipes: { x: 'y' } })),
      ).toThrow(RenderError);
    }
    expect(() => render(job('A: null\n', { output: 'parameters' }))).toThrow('null value');
    expect(() => render(job('- not a map\n', { output: 'parameters' }))).toThrow(RenderError);
  });
});
