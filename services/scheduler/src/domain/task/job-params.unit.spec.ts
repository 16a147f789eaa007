import { describe, expect, it } from 'vitest';
import { RenderParams } from '@app/proto/render';
import type { Monitor } from '../monitor/monitor.js';
import { jobParamsOf, type JobTrigger } from './job-params.js';
import type { ActiveTask, TaskDefinition } from './task.js';

const definition: TaskDefinition = {
  name: 'Shop',
  api: 'screenshot',
  query: 'url=https://shop.example/&hide_selectors=.cookie&webhook_url=https://hooks.example/x',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
};
const task = (monitor?: Monitor): ActiveTask => ({
  status: 'Active',
  taskId: 3,
  accountId: 'acc',
  definition: { ...definition, ...(monitor ? { monitor } : {}) },
  enabled: true,
  createdAt: 0,
  scheduleSince: 0,
  lastDueAt: null,
  runs: 0,
  lastRunAt: null,
  openRuns: {},
  preparedRuns: {},
});
/** The task's query as validated (what the pipeline hands in). */
const query = RenderParams.fromPartial({ url: 'https://shop.example/', hide_selectors: ['.cookie'], webhook_url: 'https://hooks.example/x', webhook_signed: true });
const visual: Monitor = { mode: 'visual', threshold: 0.1, selector: '#prices', ignoreSelectors: ['.ad'], ignoreText: [], confirm: true, failIfContentContains: ['Service Unavailable'] };
const TRIGGERS: JobTrigger[] = ['schedule', 'manual', 'confirm'];

describe("A task's job parameters", () => {
  describe('When the task has no monitor', () => {
    it.each(TRIGGERS)('should be the query as it is, webhook included (%s)', (trigger) => {
      expect(jobParamsOf(task(), query, { trigger })).toEqual(query);
    });
  });

  describe('When a visual monitor watches one element', () => {
    it.each(TRIGGERS)('should hide the ignored elements and all but the watched one, fail error pages, and carry no webhook (%s)', (trigger) => {
      const params = jobParamsOf(task(visual), query, { trigger });
      expect(params.hide_selectors).toEqual(['.cookie', '.ad', 'body *:not(:is(#prices), :is(#prices) *, :has(:is(#prices)))']);
      expect(params.fail_on_status).toEqual(['400-599']);
      expect(params.fail_if_content_contains).toEqual(['Service Unavailable']);
      expect([params.webhook_url, params.webhook_signed]).toEqual([undefined, undefined]);
      expect(params.url).toBe('https://shop.example/');
    });
  });

  describe('When the monitor is changed', () => {
    it('should follow the task as loaded: the new monitor, nothing of the old one', () => {
      const changed = { ...visual, selector: undefined, ignoreSelectors: ['.banner'], failOnStatus: [], failIfContentContains: [] };
      const params = jobParamsOf(task(changed), query, { trigger: 'schedule' });
      expect(params.hide_selectors).toEqual(['.cookie', '.banner']);
      expect([params.fail_on_status, params.fail_if_content_contains]).toEqual([[], []]);
    });
  });
});
