import { attributeSets, meter } from '@app/telemetry';
import type { WebhookAttemptOutcome } from './application/deliver-webhook.js';

/** The dispatcher's instruments (the HTTP client duration of each attempt comes from the HTTP instrumentation). */
export function webhookMetrics() {
  const attempts = meter().createCounter('webhook.attempts', {
    description: 'Webhook delivery attempts, by what they led to: delivered, retry (scheduled again) or failed (given up).',
  });
  const attributes = attributeSets((outcome: WebhookAttemptOutcome) => ({ outcome }));
  return { attempt: (outcome: WebhookAttemptOutcome) => attempts.add(1, attributes(outcome, undefined)) };
}
