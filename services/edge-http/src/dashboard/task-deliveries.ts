import type { WebhookState } from '@app/render-contracts';
import type { TaskResource, TaskRunResource } from '../tasks/index.js';

/** How many of a task's latest runs are looked at for announcements (each is a few KV reads). */
export const DELIVERY_RUNS = 20;

/** One delivery of a monitor's announcement: its signed webhook or one notify channel, with its attempts. */
export interface DeliveryView {
  /** The announcement: change-<run>, failing-<episode run>, recovered-<episode run>. */
  announcement: string;
  kind: 'changed' | 'failing' | 'recovered';
  run_id: string;
  /** webhook (the query's webhook_url) | slack | discord | teams | email */
  channel: string;
  /** Where it goes: the URL's host, or the email address. */
  target: string;
  state: WebhookState['state'];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  /** Unix seconds. */
  last_attempt: number | null;
  next_attempt: number | null;
}

const hostOf = (url: string | undefined): string => {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
};

/**
 * The delivery keys a task's latest runs may have (the dispatcher's ids): a changed run's announcement, and
 * for a failed run the failing episode it may have tripped and that episode's recovery; each as its signed
 * webhook and each notify channel (`<announcement>.notify-<i>`).
 */
export function deliveryKeysOf(task: Pick<TaskResource, 'monitor'>, runs: readonly TaskRunResource[]) {
  const notify = task.monitor?.notify ?? [];
  const announcements: { id: string; kind: DeliveryView['kind']; runId: string }[] = [];
  for (const run of runs.slice(0, DELIVERY_RUNS)) {
    if (run.change?.status === 'changed') announcements.push({ id: `change-${run.id}`, kind: 'changed', runId: run.id });
    if (run.status === 'failed' || run.change?.status === 'failed') {
      announcements.push({ id: `failing-${run.id}`, kind: 'failing', runId: run.id }, { id: `recovered-${run.id}`, kind: 'recovered', runId: run.id });
    }
  }
  return announcements.flatMap((a) => [
    { key: a.id, announcement: a, channel: 'webhook', target: '' },
    ...notify.map((n, i) => ({ key: `${a.id}.notify-${i}`, announcement: a, channel: n.type, target: n.type === 'email' ? (n.to ?? '') : hostOf(n.url) })),
  ]);
}

const seconds = (ms: number | undefined) => (ms ? Math.floor(ms / 1000) : null);

/** The deliveries found, newest run first, as the dashboard shows them. */
export async function taskDeliveries(
  task: Pick<TaskResource, 'monitor'>,
  runs: readonly TaskRunResource[],
  stateOf: (id: string) => Promise<WebhookState | undefined>,
): Promise<DeliveryView[]> {
  const keys = deliveryKeysOf(task, runs);
  const states = await Promise.all(keys.map((k) => stateOf(k.key)));
  return keys.flatMap((k, i) => {
    const s = states[i];
    if (!s) return [];
    return [
      {
        announcement: k.announcement.id,
        kind: k.announcement.kind,
        run_id: k.announcement.runId,
        channel: k.channel,
        target: k.target,
        state: s.state,
        attempts: s.attempts,
        last_status: s.lastStatus ?? null,
        last_error: s.lastError ?? null,
        last_attempt: seconds(s.lastAttemptUnixMs),
        next_attempt: s.state === 'pending' ? seconds(s.nextAttemptUnixMs) : null,
      },
    ];
  });
}
