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
  /** Sends it instead of the webhook sender (a notify channel: a chat service's webhook, an email). */
  sender?: WebhookSender;
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
  /**
   * How long a claimed attempt keeps other replicas from sending it: longer than a send and the record of its
   * outcome take, so it runs out only when the claiming dispatcher died mid-attempt.
   */
  claimMs: number;
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
 * signature), at least once: every kind of webhook goes through here. An attempt is claimed in the shared
 * state before it is sent (compare-and-set), so a redelivery or a duplicate event handled by another
 * replica meanwhile waits instead of sending it too; its outcome is recorded before the message is settled,
 * written again through a NATS leader election, so a receiver that answered 2xx is not sent it again.
 */
export function deliverSigned(deps: DeliveryDeps) {
  const { keys, sender, states, limiter, clock, policy, log } = deps;
  const busy: Disposition = { kind: 'nak', delayMs: deps.busyDelayMs };

  /** The attempt's headers: Standard Webhooks (signed with the account's secret key unless the caller opted out). */
  const headersOf = async (delivery: Delivery, body: string, now: Date): Promise<{ headers: Record<string, string> } | { settle: Disposition }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'render-service-webhooks/1' };
    if (!delivery.signed) {
      headers['webhook-id'] = keyToken(delivery.id);
      headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      return { headers };
    }
    let secret: string;
    try {
      secret = await keys.secretOf(delivery.accountId);
    } catch (err) {
      if (hasCode(err, 'not_found')) {
        log.warn({ renderId: delivery.id }, 'webhook dropped: the account no longer exists');
        return { settle: { kind: 'term' } };
      }
      // auth-quota briefly away: not an attempt, try again shortly.
      log.warn({ err, renderId: delivery.id }, 'signing key unavailable; delivery postponed');
      return { settle: busy };
    }
    return { headers: Object.assign(headers, signDelivery(secret, keyToken(delivery.id), Math.floor(now.getTime() / 1000), body)) };
  };

  return async (delivery: Delivery): Promise<Disposition> => {
    const { id, url } = delivery;
    const previous = await states.get(id);
    if (previous && previous.state.state !== 'pending') return { kind: 'ack' };
    const now = clock.now();
    const sendingUntil = previous?.state.sendingUntilUnixMs ?? 0;
    // Another replica is sending this attempt: come back when it has told how it went (or its claim ran out).
    if (sendingUntil > now.getTime()) return { kind: 'nak', delayMs: Math.max(deps.busyDelayMs, sendingUntil - now.getTime()) };

    const receiver = receiverOf(url);
    if (!limiter.tryAcquire(receiver)) return { kind: 'nak', delayMs: limiter.busyDelayMs(receiver, deps.busyDelayMs) };
    const acquired = performance.now();
    let outcome;
    try {
      const body = JSON.stringify(delivery.body);
      const signed = await headersOf(delivery, body, now);
      if ('settle' in signed) {
        if (signed.settle.kind === 'term') await states.put(id, { state: 'failed', attempts: previous?.state.attempts ?? 0, lastError: 'account_not_found' });
        return signed.settle;
      }
      const claim = { ...(previous?.state ?? { state: 'pending' as const, attempts: 0 }), sendingUntilUnixMs: now.getTime() + deps.claimMs };
      // Lost to another writer (a replica claimed it first): read the state again when the message returns.
      if ((await states.putIf(id, claim, previous?.revision ?? 0)) === undefined) return busy;
      outcome = await (delivery.sender ?? sender).send(url, body, signed.headers);
    } finally {
      limiter.release(receiver, outcome ? performance.now() - acquired : undefined);
    }

    const attempt = (previous?.state.attempts ?? 0) + 1;
    const decision = decideAfterAttempt(outcome, attempt, clock.now().getTime(), policy, deps.random);
    deps.onAttempt?.(decision.state.state === 'pending' ? 'retry' : decision.state.state);
    // Recorded before the message is settled: a redelivery then finds it (it throws only after the store stayed
    // away past its retries; the message comes back and the attempt is made again, as at-least-once allows).
    await states.put(id, decision.state);
    log.info(
      { renderId: id, attempt, outcome: outcome.kind, status: decision.state.lastStatus, state: decision.state.state, next: decision.disposition },
      'webhook attempt',
    );
    return decision.disposition;
  };
}

export type DeliverWebhook = ReturnType<typeof deliverWebhook>;
