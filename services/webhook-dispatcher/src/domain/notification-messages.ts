import type { TaskChangedEvent } from '@app/proto/scheduler';

/**
 * A monitor's announcement (a change, task.failing, task.recovered) as each notify channel's service
 * expects it: Slack's incoming webhook (`text` with Block Kit `blocks`), Discord's webhook (`content` and
 * `embeds`), Microsoft Teams' incoming webhook (a MessageCard), an email (subject and text). Each carries
 * the summary, the diff file's URL (a change) and the link to the task in the dashboard.
 */

export type AnnouncementKind = 'changed' | 'failing' | 'recovered';

export const kindOf = (e: TaskChangedEvent): AnnouncementKind => (e.kind === 'failing' || e.kind === 'recovered' ? e.kind : 'changed');

const taskLabel = (e: TaskChangedEvent) => (e.task_name ? `${e.task_name} (task ${e.task_id})` : `Task ${e.task_id}`);

/** One line saying what happened. */
export function headline(e: TaskChangedEvent): string {
  switch (kindOf(e)) {
    case 'failing':
      return `${taskLabel(e)} is failing: ${e.failures} runs in a row`;
    case 'recovered':
      return `${taskLabel(e)} recovered`;
    default:
      return `${taskLabel(e)} changed`;
  }
}

/** The facts of an announcement, as label and value (the links apart). */
function facts(e: TaskChangedEvent): { name: string; value: string }[] {
  const list = [{ name: 'Summary', value: e.summary || '-' }];
  if (kindOf(e) === 'changed') list.push({ name: 'Score', value: String(e.score) });
  if (kindOf(e) === 'failing' && e.reason) list.push({ name: 'Last failure', value: e.reason });
  list.push({ name: 'Run', value: e.run_id });
  return list;
}

/** The announcement's links: the diff file (a change with one), the dashboard. */
function links(e: TaskChangedEvent): { name: string; url: string }[] {
  const list: { name: string; url: string }[] = [];
  if (e.diff) list.push({ name: 'Diff', url: e.diff });
  if (e.dashboard_url) list.push({ name: 'Dashboard', url: e.dashboard_url });
  return list;
}

/** Slack's mrkdwn needs &, < and > escaped in text it shows. */
const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** Slack incoming webhook: `text` (the notification's fallback) and Block Kit blocks. */
export function slackMessage(e: TaskChangedEvent) {
  const title = headline(e);
  const body = facts(e)
    .map((f) => `*${f.name}:* ${slackEscape(f.value)}`)
    .join('\n');
  const blocks: object[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(title, 150) } },
    { type: 'section', text: { type: 'mrkdwn', text: clip(body, 3000) } },
  ];
  const l = links(e);
  if (l.length > 0) {
    blocks.push({
      type: 'actions',
      elements: l.map((link) => ({ type: 'button', text: { type: 'plain_text', text: link.name }, url: link.url })),
    });
  }
  return { text: clip(`${title}: ${e.summary}`, 3000), blocks };
}

/** Discord webhook: `content` and one embed (title, description, fields, link). */
export function discordMessage(e: TaskChangedEvent) {
  const colour = { changed: 0xf5a623, failing: 0xd0021b, recovered: 0x7ed321 }[kindOf(e)];
  const l = links(e);
  return {
    content: clip(headline(e), 2000),
    embeds: [
      {
        title: clip(headline(e), 256),
        description: clip(e.summary || '-', 4096),
        color: colour,
        ...(e.dashboard_url ? { url: e.dashboard_url } : {}),
        fields: [
          ...facts(e)
            .filter((f) => f.name !== 'Summary')
            .map((f) => ({ name: f.name, value: clip(f.value, 1024), inline: true })),
          ...l.map((link) => ({ name: link.name, value: clip(link.url, 1024) })),
        ],
        timestamp: new Date(Number(e.changed_unix_ms)).toISOString(),
      },
    ],
  };
}

/** Microsoft Teams incoming webhook: a MessageCard with the facts and a link per action. */
export function teamsMessage(e: TaskChangedEvent) {
  const colour = { changed: 'F5A623', failing: 'D0021B', recovered: '7ED321' }[kindOf(e)];
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: clip(headline(e), 200),
    themeColor: colour,
    title: headline(e),
    sections: [{ activityTitle: headline(e), text: e.summary || '-', facts: facts(e).map((f) => ({ name: f.name, value: f.value })) }],
    potentialAction: links(e).map((link) => ({
      '@type': 'OpenUri',
      name: link.name,
      targets: [{ os: 'default', uri: link.url }],
    })),
  };
}

/** An email: its subject and plain-text body. */
export function emailMessage(e: TaskChangedEvent): { subject: string; text: string } {
  const lines = [headline(e), '', ...facts(e).map((f) => `${f.name}: ${f.value}`)];
  if (kindOf(e) === 'changed') {
    if (e.before) lines.push(`Before: ${e.before}`);
    if (e.after) lines.push(`After: ${e.after}`);
  }
  for (const link of links(e)) lines.push(`${link.name}: ${link.url}`);
  return { subject: clip(`[monitor] ${headline(e)}`, 200).replace(/[\r\n]+/g, ' '), text: `${lines.join('\n')}\n` };
}
