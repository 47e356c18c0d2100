// classify turns an apply failure into a task error that keeps its parts: the task, the object
// and the detail each stay readable on their own (callers combine details without cutting up
// messages), and the API error stays the cause.
import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../../../src/kube/index.ts';
import { classify } from '../../../../src/kudo/tasks/classify.ts';
import {
  FatalTaskError,
  TransientTaskError,
  type TaskError,
} from '../../../../src/kudo/tasks/index.ts';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: 'ns1', name: 'web' },
};

describe('classify', () => {
  it('an invalid object is fatal and names task, object and what to do', () => {
    const api = new ApiError(
      422,
      'Invalid',
      'spec.replicas: Invalid value',
      'PATCH',
      '/apis/apps/v1',
    );
    const err = classify('deploy', deployment, api);
    expect(err).toBeInstanceOf(FatalTaskError);
    const fatal = err as FatalTaskError;
    expect(fatal.task).toBe('deploy');
    expect(fatal.object).toBe('Deployment ns1/web');
    expect(fatal.detail).toMatch(
      /^Deployment ns1\/web was refused by the API server: .*Fix the template/,
    );
    expect(fatal.message).toBe(`task deploy: ${fatal.detail}`);
    expect(fatal.cause).toBe(api);
  });

  it('an immutable field says to delete the object first', () => {
    const api = new ApiError(422, 'Invalid', 'spec.selector: field is immutable', 'PATCH', '/x');
    const err = classify('deploy', deployment, api) as FatalTaskError;
    expect(err.detail).toMatch(/cannot be changed in place: delete the object first/);
  });

  it('other failures are transient, keep the object, and a task error passes through unchanged', () => {
    const err = classify(
      'deploy',
      deployment,
      new ApiError(503, 'ServiceUnavailable', 'down', 'PATCH', '/x'),
    );
    expect(err).toBeInstanceOf(TransientTaskError);
    expect((err as TaskError).object).toBe('Deployment ns1/web');
    expect((err as TaskError).detail).toBe(
      'Deployment ns1/web: PATCH /x: 503 ServiceUnavailable: down; retrying',
    );
    const own = new FatalTaskError('deploy', 'already classified');
    expect(classify('deploy', deployment, own)).toBe(own);
    expect(own.object).toBeUndefined();
  });
});
