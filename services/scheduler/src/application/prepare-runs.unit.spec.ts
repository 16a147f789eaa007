import { describe, expect, it } from 'vitest';
import { errors } from '@app/errors';
import type { RenderJob } from '@app/proto/render';
import type { TaskDefinition, TaskEvent } from '../domain/task/task.js';
import { controlledClock } from '../testing/controlled-clock.js';
import { memoryTaskStreams } from '../testing/memory-task-streams.js';
import { recordingAuthQuota } from '../testing/recording-auth-quota.js';
import { runPreparation } from './prepare-runs.js';
import { runStarter } from './start-run.js';
import type { TargetGuard } from './ports.js';

const DUE = Date.parse('2026-05-01T10:01:00Z');
const definition = (query: string): TaskDefinition => ({
  name: 'n',
  api: 'scrape',
  query,
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
});
const created = (query: string): TaskEvent => ({
  type: 'TaskCreated',
  data: { taskId: 3, accountId: 'acc', definition: definition(query), enabled: true, createdAt: DUE - 60_000 },
});

/** The SSRF policy refusing one host, for whichever parameter names it. */
const refusing = (host: string): TargetGuard => ({
  check: async (url, parameter) => {
    if (new URL(url).hostname === host) throw errors.targetNotAllowed(parameter, 'the URL must point to a public internet address');
  },
  checkWebhook: async () => undefined,
});

function setup(query: string, guard: TargetGuard) {
  const streams = memoryTaskStreams({ 3: [created(query)] });
  const auth = recordingAuthQuota();
  const prepared: RenderJob[] = [];
  let n = 0;
  const clock = controlledClock(DUE - 15_000);
  const starter = runStarter({
    streams: streams.port,
    authQuota: auth.port,
    jobs: {
      publish: async () => undefined,
      prepare: async (job) => {
        prepared.push(job);
        return { publish: async () => undefined };
      },
      withoutJob: async () => undefined,
    },
    guard,
    clock,
    newId: () => `job-${++n}`,
    newFileName: () => `file-${n}`,
  });
  const views = { catchUp: async () => undefined, byId: () => undefined };
  const preparation = runPreparation({ starter, streams: streams.port, views, clock, concurrency: 1 });
  return { preparation, streams, auth, prepared };
}

const types = (events: TaskEvent[]) => events.map((e) => e.type);

describe('Run start ahead of its due time (prepared)', () => {
  describe('When a run comes within the lead time and its targets are allowed', () => {
    it('should admit it, claim it and make its job ready', async () => {
      const { preparation, streams, auth, prepared } = setup('url=https%3A%2F%2Fexample.com%2Fx&proxy=http%3A%2F%2Fu%3Ap%40proxy.example%3A8080', refusing('10.0.0.1'));
      await preparation.prepare({ taskId: 3, dueAt: DUE });
      expect(auth.admitted).toHaveLength(1);
      expect(types(streams.events(3))).toEqual(['TaskCreated', 'TaskRunPrepared']);
      expect(prepared).toHaveLength(1);
      expect(prepared[0]!.params).toMatchObject({ url: 'https://example.com/x', proxy: 'http://u:p@proxy.example:8080' });
      expect(preparation.readyCount()).toBe(1);
    });
  });

  describe('When the run names a proxy the SSRF policy refuses', () => {
    it('should neither admit nor claim it (the due-time path records the refusal)', async () => {
      const { preparation, streams, auth, prepared } = setup('url=https%3A%2F%2Fexample.com%2Fx&proxy=http%3A%2F%2Fu%3Ap%4010.0.0.1%3A8080', refusing('10.0.0.1'));
      await preparation.prepare({ taskId: 3, dueAt: DUE });
      expect(auth.admitted).toEqual([]);
      expect(types(streams.events(3))).toEqual(['TaskCreated']);
      expect(prepared).toEqual([]);
      expect(preparation.readyCount()).toBe(0);
    });
  });

  describe('When the run names a page the SSRF policy refuses', () => {
    it('should neither admit nor claim it', async () => {
      const { preparation, streams, auth } = setup('url=http%3A%2F%2F10.0.0.1%2Fx', refusing('10.0.0.1'));
      await preparation.prepare({ taskId: 3, dueAt: DUE });
      expect(auth.admitted).toEqual([]);
      expect(types(streams.events(3))).toEqual(['TaskCreated']);
    });
  });
});
