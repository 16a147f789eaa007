import nodemailer from 'nodemailer';
import type { AttemptOutcome } from '../domain/delivery-decision.js';
import type { WebhookSender } from '../application/ports.js';

/**
 * Sends notify emails through the server's SMTP server (SMTP_URL, from SMTP_FROM) with nodemailer. It takes
 * a delivery as the webhook sender does: `url` is `mailto:<to>`, `body` the JSON of {subject, text}. The SMTP
 * server's answer becomes the attempt's outcome: accepted is 200; a permanent refusal (5xx: no such mailbox)
 * stops like a 410; anything else (4xx, no connection, a timeout) is tried again on the webhook schedule.
 */
export function smtpEmailSender(opts: { url: string; from: string; timeoutMs: number }): WebhookSender & { close(): void } {
  const u = new URL(opts.url);
  const secure = u.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
  return {
    async send(url, body): Promise<AttemptOutcome> {
      const to = url.replace(/^mailto:/, '');
      const { subject, text } = JSON.parse(body) as { subject: string; text: string };
      try {
        await transport.sendMail({ from: opts.from, to, subject, text });
        return { kind: 'response', status: 200 };
      } catch (err) {
        const code = (err as { responseCode?: number; code?: string }).responseCode;
        if (typeof code === 'number') return { kind: 'response', status: code >= 500 ? 410 : 503 };
        const kind = (err as { code?: string }).code;
        return kind === 'ETIMEDOUT' ? { kind: 'timeout' } : { kind: 'connection_failed' };
      }
    },
    close: () => transport.close(),
  };
}
