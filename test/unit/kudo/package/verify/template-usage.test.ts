// What the verifier reads out of a template's parse tree, and Pipe artifact naming.
import { describe, expect, it } from '@jest/globals';
import {
  DuplicatePipeKeyError,
  pipeArtifactName,
  pipePodName,
  planPipes,
} from '../../../../../src/kudo/package/index.ts';
import { templateUsage } from '../../../../../src/kudo/verify/index.ts';

describe('templateUsage', () => {
  it('follows dot: with/range bodies have another dot, $ is always the root', () => {
    const usage = templateUsage(
      't',
      [
        '{{ .Name }}{{ $.Namespace }}{{ .Params }}{{ .Pipes.x }}',
        '{{ if .Params.A }}{{ .Bogus }}{{ else }}{{ .Params.B }}{{ end }}',
        '{{ with .Params.C }}{{ .inner }}{{ .Params.D }}{{ else }}{{ .Other }}{{ end }}',
        '{{ range $i, $v := .Params.E }}{{ $v.x }}{{ $.Params.F }}{{ end }}',
        '{{ printf "%s" (.Params.G | quote) }}{{ (.Params).H }}',
        '{{ template "inner" . }}{{ define "inner" }}{{ .Params.I }}{{ .Whatever }}{{ end }}',
      ].join(''),
    );
    expect([...usage.params].sort()).toEqual(['A', 'B', 'C', 'E', 'F', 'G']);
    // .Params.D (inside with) and .Params.I (inside a define) count as used, unchecked.
    expect([...usage.paramsUsed].sort()).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'I']);
    expect([...usage.implicits].sort()).toEqual(['Bogus', 'Name', 'Namespace', 'Other']);
    expect(usage.error).toBeUndefined();
  });

  it('returns Go’s parse error, with unknown functions as parse errors', () => {
    expect(templateUsage('t', '{{ nosuchfunc 1 }}').error).toBe(
      'template: t:1: function "nosuchfunc" not defined',
    );
  });
});

describe('Pipe naming', () => {
  const at = {
    instance: 'cowsay-instance',
    plan: 'deploy',
    phase: 'main',
    step: 'genfiles',
    task: 'genwww',
  };

  it('names pod and artifacts from sanitized coordinates', () => {
    expect(pipePodName(at)).toBe('cowsayinstance.deploy.main.genfiles.genwww.pipepod');
    expect(pipeArtifactName(at, 'indexHtml')).toBe(
      'cowsayinstance.deploy.main.genfiles.genwww.indexhtml',
    );
    expect(pipeArtifactName({ ...at, instance: 'Foo-Instance', task: 'gen_files' }, 'k')).toBe(
      'fooinstance.deploy.main.genfiles.genfiles.k',
    );
  });

  it('maps every key of a plan, and refuses a key twice', () => {
    const tasks = [
      { name: 'genwww', kind: 'Pipe', spec: { pipe: [{ key: 'indexHtml' }, { key: 'other' }] } },
    ];
    const plan = { phases: [{ name: 'main', steps: [{ name: 'genfiles', tasks: ['genwww'] }] }] };
    expect(
      Object.fromEntries(planPipes('deploy', plan, tasks, { instance: 'cowsay-instance' })),
    ).toEqual({
      indexHtml: 'cowsayinstance.deploy.main.genfiles.genwww.indexhtml',
      other: 'cowsayinstance.deploy.main.genfiles.genwww.other',
    });
    const twice = {
      phases: [
        {
          name: 'main',
          steps: [
            { name: 'a', tasks: ['genwww'] },
            { name: 'b', tasks: ['genwww'] },
          ],
        },
      ],
    };
    expect(() => planPipes('deploy', twice, tasks, { instance: 'i' })).toThrow(
      DuplicatePipeKeyError,
    );
    expect(() => planPipes('deploy', twice, tasks, { instance: 'i' })).toThrow(
      'duplicated pipe key indexHtml in plan deploy',
    );
  });
});
