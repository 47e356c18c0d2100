// Which installation a webhook registration belongs to: the namespace its annotation names
// (several `planwright start` processes of one namespace are one installation, whichever URL
// the registration calls), or — written by an older version, without the annotation — whom it
// calls: a Service by namespace and name, a URL by loopback host and port.
import { describe, expect, it } from '@jest/globals';
import {
  describeRegistration,
  registeredTo,
  sameTarget,
  type Registration,
} from '../../../src/cli/registration.ts';

type Present = Extract<Registration, { state: 'present' }>;

const service = (namespace: string) =>
  ({ kind: 'service', namespace, name: 'planwright-webhook' }) as const;
const url = (u: string) => ({ kind: 'url', url: u }) as const;

describe('registration', () => {
  it('the annotation decides: one namespace is one installation, whichever process the URL names', () => {
    const found: Present = {
      state: 'present',
      target: url('https://127.0.0.1:9443/mutate/instances'),
      installation: 'default',
    };
    expect(
      registeredTo(found, {
        namespace: 'default',
        target: url('https://127.0.0.1:40001/mutate/instances'),
      }),
    ).toBe(true);
    expect(
      registeredTo(found, { namespace: 'planwright-system', target: service('planwright-system') }),
    ).toBe(false);
    expect(describeRegistration(found)).toBe(
      'the installation of namespace default (it calls https://127.0.0.1:9443/mutate/instances (a planwright start --install))',
    );
  });

  it('without the annotation, whom it calls decides', () => {
    const byService: Present = {
      state: 'present',
      target: service('planwright-system'),
      installation: undefined,
    };
    expect(
      registeredTo(byService, {
        namespace: 'planwright-system',
        target: service('planwright-system'),
      }),
    ).toBe(true);
    expect(registeredTo(byService, { namespace: 'b', target: service('b') })).toBe(false);
    expect(describeRegistration(byService)).toBe('service planwright-system/planwright-webhook');
    expect(
      sameTarget(
        url('https://127.0.0.1:9443/mutate/instances'),
        url('https://localhost:9443/validate/instances'),
      ),
    ).toBe(true);
    expect(sameTarget(url('https://127.0.0.1:9443/x'), url('https://127.0.0.1:9444/x'))).toBe(
      false,
    );
    expect(sameTarget(url('https://127.0.0.1:9443/x'), service('default'))).toBe(false);
    expect(sameTarget(url('not a url'), url('not a url'))).toBe(false);
  });
});
