// ServerMetrics keeps counts as plain numbers and hands them to prom-client at scrape time;
// these tests pin what a scrape must show so that deferral never loses or repeats a count.

import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { ServerMetrics } from '../../../src/server/metrics.ts';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const allowed =
  'planwright_webhook_requests_total{webhook="noop",type="validating",outcome="allowed"}';
const denied =
  'planwright_webhook_requests_total{webhook="noop",type="validating",outcome="denied"}';
const inFlight = 'planwright_webhook_requests_in_flight{webhook="noop",type="validating"}';
const count = 'planwright_webhook_request_duration_seconds_count{webhook="noop",type="validating"}';

describe('ServerMetrics', () => {
  it('shows every outcome at zero once a webhook has been called', async () => {
    const registry = new Registry();
    const metrics = new ServerMetrics(registry);
    metrics.begin('noop', 'validating');
    const text = await registry.metrics();
    expect(sample(text, allowed)).toBe(0);
    expect(sample(text, denied)).toBe(0);
    expect(sample(text, inFlight)).toBe(1);
  });

  it('counts each outcome once across scrapes and tracks in-flight reviews', async () => {
    const registry = new Registry();
    const metrics = new ServerMetrics(registry);
    const first = metrics.begin('noop', 'validating');
    const second = metrics.begin('noop', 'validating');
    first('allowed');
    let text = await registry.metrics();
    expect(sample(text, allowed)).toBe(1);
    expect(sample(text, inFlight)).toBe(1);
    expect(sample(text, count)).toBe(1);

    // A second scrape with nothing new must not add the same review again.
    text = await registry.metrics();
    expect(sample(text, allowed)).toBe(1);

    second('denied');
    metrics.begin('noop', 'validating')('allowed');
    text = await registry.metrics();
    expect(sample(text, allowed)).toBe(2);
    expect(sample(text, denied)).toBe(1);
    expect(sample(text, inFlight)).toBe(0);
    expect(sample(text, count)).toBe(3);
  });

  it('keeps webhooks and types apart', async () => {
    const registry = new Registry();
    const metrics = new ServerMetrics(registry);
    metrics.begin('noop', 'validating')('allowed');
    metrics.begin('noop', 'mutating')('error');
    const text = await registry.metrics();
    expect(sample(text, allowed)).toBe(1);
    expect(
      sample(
        text,
        'planwright_webhook_requests_total{webhook="noop",type="mutating",outcome="error"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'planwright_webhook_requests_total{webhook="noop",type="mutating",outcome="allowed"}',
      ),
    ).toBe(0);
  });
});

describe('ServerMetrics TLS connections', () => {
  const full = 'planwright_webhook_tls_connections_total{handshake="full"}';
  const resumed = 'planwright_webhook_tls_connections_total{handshake="resumed"}';

  it('counts connections by handshake kind, once across scrapes', async () => {
    const registry = new Registry();
    const metrics = new ServerMetrics(registry);
    let text = await registry.metrics();
    expect(sample(text, full)).toBe(0);
    expect(sample(text, resumed)).toBe(0);
    metrics.connectionAccepted(false);
    metrics.connectionAccepted(false);
    metrics.connectionAccepted(true);
    text = await registry.metrics();
    expect(sample(text, full)).toBe(2);
    expect(sample(text, resumed)).toBe(1);
    metrics.connectionAccepted(false);
    text = await registry.metrics();
    expect(sample(text, full)).toBe(3);
    expect(sample(text, resumed)).toBe(1);
  });
});
