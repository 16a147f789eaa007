import type { FastifyInstance, FastifyRequest } from 'fastify';
import { compareRunsOf, withChangeFileUrls } from './compare-runs.js';
import { taskFieldsOf, taskIdOf, withFileUrls } from './task-fields.js';
import type { TaskScheduler } from './task-scheduler.js';
import { filesBaseUrl } from '../web/index.js';

export interface TaskRoutesOptions {
  scheduler: TaskScheduler;
  publicUrl?: string | undefined;
  /** Where the routes are: /v1/tasks for the API; the dashboard serves them at /tasks under its own prefix. */
  path?: string;
  /** The account asking; by default the one its admission admitted. */
  accountOf?: (request: FastifyRequest) => string;
  /** Reads are admitted as reads (rate limit, plan); false: they cost nothing (a dashboard session's reads). */
  admitReads?: boolean;
}

const TASKS = { feature: 'tasks' } as const;

/**
 * /v1/tasks: scheduled tasks, Scale plan only (the admission plugin answers 402 plan_upgrade_required
 * otherwise). Creating one counts against the quota; the others only against the rate limit (a run asked
 * for now is charged as its render, like every run).
 */
export async function taskRoutes(app: FastifyInstance, opts: TaskRoutesOptions) {
  const { scheduler } = opts;
  const path = opts.path ?? '/v1/tasks';
  const accountOf = opts.accountOf ?? ((request: FastifyRequest) => request.admitted!.account.accountId);
  const read = { config: opts.admitReads === false ? {} : { usage: 'read' as const, ...TASKS } };

  app.post(path, { config: { usage: 'task_create', ...TASKS } }, async (request, reply) => {
    const task = await scheduler.create(accountOf(request), taskFieldsOf(request.body), {
      filesBaseUrl: filesBaseUrl(request, opts.publicUrl),
    });
    return reply.status(201).send(task);
  });

  app.get(path, read, async (request) => ({
    tasks: await scheduler.list(accountOf(request)),
  }));

  app.get(`${path}/:id`, read, async (request) => scheduler.get(accountOf(request), taskIdOf(request)));

  app.patch(`${path}/:id`, { config: { usage: 'task_other', ...TASKS } }, async (request) =>
    scheduler.update(accountOf(request), taskIdOf(request), taskFieldsOf(request.body)),
  );

  app.delete(`${path}/:id`, { config: { usage: 'task_other', ...TASKS } }, async (request, reply) => {
    await scheduler.remove(accountOf(request), taskIdOf(request));
    return reply.status(204).send();
  });

  app.get(`${path}/:id/runs`, read, async (request) => {
    const base = filesBaseUrl(request, opts.publicUrl);
    const runs = await scheduler.runs(accountOf(request), taskIdOf(request));
    return { runs: runs.map((run) => withFileUrls(run, base)) };
  });

  // A run now, outside the schedule: 202 with the run (running; its render is charged like any run's).
  app.post(`${path}/:id/runs`, { config: { usage: 'task_other', ...TASKS } }, async (request, reply) => {
    const run = await scheduler.run(accountOf(request), taskIdOf(request));
    return reply.status(202).send(withFileUrls(run, filesBaseUrl(request, opts.publicUrl)));
  });

  app.get(`${path}/:id/changes`, read, async (request) => {
    const base = filesBaseUrl(request, opts.publicUrl);
    const changes = await scheduler.changes(accountOf(request), taskIdOf(request));
    return { changes: changes.map((run) => withFileUrls(run, base)) };
  });

  // Two kept runs compared (in the scheduler's comparison threads): the shape of a run's change.
  app.get(`${path}/:id/compare`, read, async (request) => {
    const id = taskIdOf(request);
    const change = await scheduler.compare(accountOf(request), id, compareRunsOf(request.query));
    return withChangeFileUrls(change, filesBaseUrl(request, opts.publicUrl));
  });
}
