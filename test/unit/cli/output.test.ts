// Output helpers: uitable-style tables, -o yaml|json, and init's namespace rewrite.
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { renameNamespace, installationObjects } from '../../../src/cli/manifests.ts';
import { formatObjects, outputFormat } from '../../../src/cli/output/objects.ts';
import { renderTable } from '../../../src/cli/output/table.ts';

describe('CLI output', () => {
  it('pads every cell to its column and separates columns with a tab', () => {
    expect(
      renderTable([
        ['Name', 'Kind'],
        ['deploy-everything', 'Apply'],
      ]),
    ).toBe('Name             \tKind \ndeploy-everything\tApply\n');
  });

  it('writes objects as YAML documents ending in ... or as one JSON array', () => {
    const objs = [{ kind: 'A' }, { kind: 'B' }];
    expect(formatObjects(objs, 'yaml')).toBe('---\nkind: A\n---\nkind: B\n...\n');
    expect(JSON.parse(formatObjects(objs, 'json'))).toEqual(objs);
    expect(outputFormat(undefined)).toBeUndefined();
    expect(() => outputFormat('xml')).toThrow(`only support 'yaml' or 'json', got "xml"`);
  });

  it('renames the installation namespace only where it is a whole name or DNS label', () => {
    const out = renameNamespace(
      {
        metadata: { namespace: 'planwright-system', name: 'planwright-system-extra' },
        dns: ['svc.planwright-system.svc', 'planwright-systemx'],
        annotation: 'planwright-system/planwright-webhook-cert',
      },
      'planwright-system',
      'ops',
    );
    expect(out).toEqual({
      metadata: { namespace: 'ops', name: 'planwright-system-extra' },
      dns: ['svc.ops.svc', 'planwright-systemx'],
      annotation: 'ops/planwright-webhook-cert',
    });
  });

  it('reads the installation from manifests/, CRDs first and webhook registrations last', async () => {
    const objects = await installationObjects({ namespace: 'ops' });
    expect(objects[0]?.kind).toBe('CustomResourceDefinition');
    expect(objects.slice(-2).map((o) => o.kind)).toEqual([
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
    ]);
    expect(JSON.stringify(objects)).not.toContain('planwright-system');
    const crdOnly = await installationObjects({ crdOnly: true });
    expect(new Set(crdOnly.map((o) => o.kind))).toEqual(new Set(['CustomResourceDefinition']));
    // Valid YAML round trip of what --dry-run -o yaml prints.
    const docs = parseAllDocuments(formatObjects(objects, 'yaml'));
    expect(docs.map((d) => (d.toJS() as { kind: string }).kind)).toEqual(
      objects.map((o) => o.kind),
    );
  });
});
