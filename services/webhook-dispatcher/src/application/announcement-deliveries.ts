import type { TaskChangedEvent } from '@app/proto/scheduler';
import { discordMessage, emailMessage, slackMessage, teamsMessage } from '../domain/notification-messages.js';
import { announcementId, channelDeliveryId, taskAnnouncementBody } from '../domain/task-changed-body.js';
import type { Delivery } from './deliver-webhook.js';
import type { WebhookSender } from './ports.js';

/** How notify channels are sent: chat services' webhooks (pinned, SSRF-checked), email (SMTP; absent: not configured). */
export interface ChannelSenders {
  chat: WebhookSender;
  email?: WebhookSender | undefined;
}

/** The email sender's address form: `mailto:<to>`. */
export const mailtoOf = (to: string): string => `mailto:${to}`;

/**
 * Every delivery an announcement makes: the task's webhook (signed, as every webhook), then each notify
 * channel in its service's own format (unsigned: those services take no signature). An email channel on a
 * dispatcher without SMTP is skipped (the scheduler refuses it when the server has none).
 */
export function announcementDeliveries(e: TaskChangedEvent, senders: ChannelSenders): Delivery[] {
  const list: Delivery[] = [];
  if (e.webhook_url) {
    list.push({ id: announcementId(e), accountId: e.account_id, url: e.webhook_url, signed: e.webhook_signed, body: taskAnnouncementBody(e) });
  }
  e.notify.forEach((n, i) => {
    const common = { id: channelDeliveryId(e, i), accountId: e.account_id, signed: false };
    if (n.type === 'email') {
      if (!senders.email || !n.to) return;
      list.push({ ...common, url: mailtoOf(n.to), body: emailMessage(e), sender: senders.email });
      return;
    }
    if (!n.url) return;
    const body = n.type === 'slack' ? slackMessage(e) : n.type === 'discord' ? discordMessage(e) : n.type === 'teams' ? teamsMessage(e) : undefined;
    if (body) list.push({ ...common, url: n.url, body, sender: senders.chat });
  });
  return list;
}
