import { describe, expect, it } from 'vitest';
import type { WebhookState } from '@app/render-contracts';
import type { TaskRunResource } from '../tasks/index.js';
import { DELIVERY_RUNS, deliveryKeysOf, taskDeliveries } from './task-deliveries.js';

const run = (id: string, status: string, change?: string): TaskRunResource => ({
  id,
  task_id: 7,
  trigger: 'schedule',
  status,
  due: 1,
  started: 1,
  finished: 2,
  file: null,
  error: null,
  change: change ? { status: change, score: 0, summary: '', diff: null, before: null, after: null, boxes: [], compared: 2 } : null,
});
const monitor = { mode: 'text', notify: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }, { type: 'email', to: 'team@example.com' }] };

describe('A monitor\'s deliveries', () => {
  it('should look for each changed run\'s announcement and each failed run\'s episode, as the webhook and every channel', () => {
    // Given a changed run, an unchanged one and a failed one
    const keys = deliveryKeysOf({ monitor }, [run('7-3', 'failed'), run('7-2', 'succeeded', 'unchanged'), run('7-1', 'succeeded', 'changed')]);
    // Then the dispatcher's delivery ids are read, with where each channel goes
    expect(keys.map((k) => [k.key, k.channel, k.target])).toEqual([
      ['failing-7-3', 'webhook', ''],
      ['failing-7-3.notify-0', 'slack', 'hooks.slack.com'],
      ['failing-7-3.notify-1', 'email', 'team@example.com'],
      ['recovered-7-3', 'webhook', ''],
      ['recovered-7-3.notify-0', 'slack', 'hooks.slack.com'],
      ['recovered-7-3.notify-1', 'email', 'team@example.com'],
      ['change-7-1', 'webhook', ''],
      ['change-7-1.notify-0', 'slack', 'hooks.slack.com'],
      ['change-7-1.notify-1', 'email', 'team@example.com'],
    ]);
  });

  it('should look at the latest runs only', () => {
    const runs = Array.from({ length: DELIVERY_RUNS + 5 }, (_, i) => run(`7-${100 - i}`, 'succeeded', 'changed'));
    expect(deliveryKeysOf({ monitor: { mode: 'text' } }, runs)).toHaveLength(DELIVERY_RUNS);
  });

  it('should answer the deliveries that exist, with their attempts in Unix seconds', async () => {
    const states: Record<string, WebhookState> = {
      'change-7-1.notify-0': { state: 'delivered', attempts: 2, lastStatus: 200, lastAttemptUnixMs: 1_800_000_000_000, nextAttemptUnixMs: 1_800_000_005_000 },
      'change-7-1.notify-1': { state: 'pending', attempts: 1, lastError: 'connection_failed', lastAttemptUnixMs: 1_800_000_000_000, nextAttemptUnixMs: 1_800_000_030_000 },
    };
    const deliveries = await taskDeliveries({ monitor }, [run('7-1', 'succeeded', 'changed')], async (id) => states[id]);
    expect(deliveries).toEqual([
      { announcement: 'change-7-1', kind: 'changed', run_id: '7-1', channel: 'slack', target: 'hooks.slack.com', state: 'delivered', attempts: 2, last_status: 200, last_error: null, last_attempt: 1_800_000_000, next_attempt: null },
      { announcement: 'change-7-1', kind: 'changed', run_id: '7-1', channel: 'email', target: 'team@example.com', state: 'pending', attempts: 1, last_status: null, last_error: 'connection_failed', last_attempt: 1_800_000_000, next_attempt: 1_800_000_030 },
    ]);
  });
});
