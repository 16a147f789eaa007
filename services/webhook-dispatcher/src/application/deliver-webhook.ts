import { hasCode, type Disposition } from '@app/errors';
import { keyToken } from '@app/render-contracts';
import type { RenderFinished } from '@app/proto/render';
import { decideAfterAttempt, type RetryPolicy } from '../domain/delivery-decision.js';
import { signDelivery } from '../domain/signature.js';
import { webhookBody } from '../domain/webhook-body.js';
import type { Clock, DeliveryStates, SigningKeys, WebhookSender } from './ports.js';
import { receiverOf, type ReceiverLimiter } from './receiver-limiter.js';

export interface DeliveryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * One delivery attempt of a finished render's webhook, at least once: the attempts made so far are in
 * the shared delivery state, the wait before the next is the message's nak delay, so a dispatcher that
 * dies mid-schedule loses nothing (the message comes back to another replica, or to it after restart).
 */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

/** One webhook to deliver: `id` is its webhook-id (the same on every attempt) and its delivery state's key. */
export interface Delivery {
  id: string;
  accountId: string;
  url: string;
  signed: boolean;
  body: unknown;
}

export interface DeliveryDeps {
  keys: SigningKeys;
  sender: WebhookSender;
  states: DeliveryStates;
  limiter: ReceiverLimiter;
  clock: Clock;
  policy: RetryPolicy;
  /** When the receiver is busy here, the message comes back after about this long (not an attempt). */
  busyDelayMs: number;
  /** Where files are served when the event does not say (task runs). */
  filesBaseUrl?: string | undefined;
  log: DeliveryLog;
  random?: () => number;
  /** Told of every attempt and what it led to: delivered, retry (pending) or failed (metrics). */
  onAttempt?: (state: WebhookAttemptOutcome) => void;
}

/** A finished render's webhook (async renders and task runs with a webhook_url). */
export function deliverWebhook(deps: DeliveryDeps) {
  const deliver = deliverSigned(deps);
  return async (event: RenderFinished): Promise<Disposition> => {
    if (!event.webhook_url) return { kind: 'ack' };
    return deliver({
      id: event.job_id,
      accountId: event.account_id,
      url: event.webhook_url,
      signed: event.webhook_signed !== false,
      body: webhookBody(event, deps.filesBaseUrl),
    });
  };
}

/**
 * Delivers one webhook, signed with the account's secret key (Standard Webhooks headers and the plain
 * signature), at least once: every kind of webhook goes through here.
 */
export function deliverSigned(deps: DeliveryDeps) {
  const { keys, sender, states, limiter, clock, policy, log } = deps;

  return async (delivery: Delivery): Promise<Disposition> => {
    const { id, url } = delivery;
    const previous = await states.get(id);
    if (previous && previous.state !== 'pending') return { kind: 'ack' };

    const receiver = receiverOf(url);
    if (!limiter.tryAcquire(receiver)) return { kind: 'nak', delayMs: deps.busyDelayMs };
    let outcome;
    const now = clock.now();
    try {
      const body = JSON.stringify(delivery.body);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'render-service-webhooks/1' };
      if (delivery.signed) {
        let secret: string;
        try {
          secret = await keys.secretOf(delivery.accountId);
        } catch (err) {
          if (hasCode(err, 'not_found')) {
            log.warn({ renderId: id }, 'webhook dropped: the account no longer exists');
            await states.put(id, { state: 'failed', attempts: previous?.attempts ?? 0, lastError: 'account_not_found' });
            return { kind: 'term' };
          }
          // auth-quota briefly away: not an attempt, try again shortly.
          log.warn({ err, renderId: id }, 'signing key unavailable; delivery postponed');
          return { kind: 'nak', delayMs: deps.busyDelayMs };
        }
        Object.assign(headers, signDelivery(secret, keyToken(id), Math.floor(now.getTime() / 1000), body));
      } else {
        headers['webhook-id'] = keyToken(id);
        headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      }
      outcome = await sender.send(url, body, headers);
    } finally {
      limiter.release(receiver);
    }

    const attempt = (previous?.attempts ?? 0) + 1;
    const decision = decideAfterAttempt(outcome, attempt, clock.now().getTime(), policy, deps.random);
    deps.onAttempt?.(decision.state.state === 'pending' ? 'retry' : decision.state.state);
    await states.put(id, decision.state).catch((err: unknown) => log.warn({ err, renderId: id }, 'delivery state not recorded'));
    log.info(
      { renderId: id, attempt, outcome: outcome.kind, status: decision.state.lastStatus, state: decision.state.state, next: decision.disposition },
      'webhook attempt',
    );
    return decision.disposition;
  };
}

export type DeliverWebhook = ReturnType<typeof deliverWebhook>;
