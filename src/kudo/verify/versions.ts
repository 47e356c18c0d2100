/** Version fields must be (lenient) semver: operatorVersion and kubernetesVersion always, the others when set. */
import { parseLenientVersion } from '../package/index.ts';
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';

export function checkVersions(s: VerifySubject, out: Findings): void {
  if (!s.operatorName)
    out.error(
      `${JSON.stringify(s.operatorNameField.replace(/^.*: /, ''))} is required`,
      s.operatorNameField,
    );
  for (const v of s.versions) {
    const text = (v.value ?? '').trim();
    if (text === '') {
      if (v.required)
        out.error(`${JSON.stringify(v.label)} is required and must be semver`, v.field);
      continue;
    }
    if (!parseLenientVersion(v.value ?? '')) {
      out.error(`unable to parse ${JSON.stringify(v.label)}: Invalid Semantic Version`, v.field);
    }
  }
}
