import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { checkWebhookUrl, pinnedLookup, type LookupFn } from '@app/net-guard';
import { untraced } from '@app/telemetry';
import type { AttemptOutcome } from '../domain/delivery-decision.js';
import type { WebhookSender } from '../application/ports.js';

export interface SenderOptions {
  /** Private addresses allowed, and plain http to loopback (local use and tests only). */
  allowPrivate: boolean;
  /** The whole attempt, connection to last byte read. */
  timeoutMs: number;
  /** Response bytes read at most (the body is never used; a huge one is cut off). */
  maxResponseBytes: number;
  /** Extra trusted CA (tests); production trusts the system store only. */
  ca?: string | Buffer | undefined;
  lookup?: LookupFn | undefined;
}

/** Retry-After as milliseconds (delta seconds or an HTTP date). */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Delivers over https (http only to loopback when private targets are allowed). The URL is checked
 * again at every attempt and the connection goes only to the addresses that check validated (no second
 * resolution: DNS rebinding cannot redirect it), keeping the name for Host and TLS SNI and certificate
 * verification. Redirects are never followed: a 3xx is a failed attempt.
 */
export function pinnedWebhookSender(opts: SenderOptions): WebhookSender {
  return {
    async send(url, body, headers) {
      let target;
      try {
        target = await checkWebhookUrl(url, { parameter: 'webhook_url', allowPrivate: opts.allowPrivate, lookup: opts.lookup });
      } catch {
        return { kind: 'target_not_allowed' };
      }
      const { url: parsed, addresses } = target;

      const request = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<AttemptOutcome>((resolve) => {
        let settled = false;
        // Once the status line is in, a receiver that never finishes its body still answered.
        let answered: AttemptOutcome | undefined;
        const finish = (outcome: AttemptOutcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          resolve(outcome);
        };
        // Untraced: no trace context leaves the service (the receiver is outside it).
        const req = request(
          parsed,
          untraced<RequestOptions>({
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            lookup: pinnedLookup(addresses),
            agent: false,
            minVersion: 'TLSv1.2',
            ...(opts.ca ? { ca: opts.ca } : {}),
          }),
        );
        const timer = setTimeout(() => finish(answered ?? { kind: 'timeout' }), opts.timeoutMs);
        req.on('response', (res: IncomingMessage) => {
          const outcome: AttemptOutcome = {
            kind: 'response',
            status: res.statusCode ?? 0,
            retryAfterMs: retryAfterMs(res.headers['retry-after'], Date.now()),
          };
          answered = outcome;
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > opts.maxResponseBytes) finish(outcome);
          });
          res.on('end', () => finish(outcome));
          res.on('error', () => finish(outcome));
        });
        req.on('error', () => finish({ kind: 'connection_failed' }));
        req.end(body);
      });
    },
  };
}
