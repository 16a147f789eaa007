import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReservationOutcomes } from '../../application/ports.js';
import { taskFieldsOf, taskIdOf, withFileUrls, type TaskScheduler } from '../../http/routes/tasks.routes.js';
import { filesBaseUrl } from '../../http/reservation.js';
import type { AccountConsole } from '../ports.js';

/**
 * The account's scheduled tasks, through the scheduler like /v1/tasks. Changes are admitted by auth-quota
 * as the API's are (rate limit, Scale plan, quota for a creation) and settled the same way.
 */
export async function dashboardTaskRoutes(
  app: FastifyInstance,
  opts: { scheduler: TaskScheduler; console: AccountConsole; reservations?: ReservationOutcomes | undefined; publicUrl?: string | undefined },
) {
  const { scheduler } = opts;
  const accountOf = (request: FastifyRequest) => request.dashboardSession!.account.accountId;

  const admitted = async <T>(request: FastifyRequest, usage: 'task_create' | 'task_other', change: () => Promise<T>): Promise<T> => {
    const accountId = accountOf(request);
    const { reservationId } = await opts.console.admit(accountId, usage, ['tasks']);
    // No render job carries this reservation: its end is announced, and auth-quota settles it.
    const ended = (succeeded: boolean) =>
      reservationId && opts.reservations
        ? opts.reservations
            .ended({ accountId, reservationId, succeeded })
            .catch((err: unknown) => request.log.error({ err }, 'announcing the end of a quota reservation failed'))
        : undefined;
    try {
      const result = await change();
      await ended(true);
      return result;
    } catch (err) {
      await ended(false);
      throw err;
    }
  };

  app.get('/tasks', async (request) => ({ tasks: await scheduler.list(accountOf(request)) }));

  app.post('/tasks', async (request, reply) => {
    const fields = taskFieldsOf(request.body);
    const task = await admitted(request, 'task_create', () =>
      scheduler.create(accountOf(request), fields, { filesBaseUrl: filesBaseUrl(request, opts.publicUrl) }),
    );
    return reply.status(201).send(task);
  });

  app.patch('/tasks/:id', async (request) => {
    const fields = taskFieldsOf(request.body);
    return admitted(request, 'task_other', () => scheduler.update(accountOf(request), taskIdOf(request), fields));
  });

  app.delete('/tasks/:id', async (request, reply) => {
    await admitted(request, 'task_other', () => scheduler.remove(accountOf(request), taskIdOf(request)));
    return reply.status(204).send();
  });

  app.get('/tasks/:id/runs', async (request) => {
    const base = filesBaseUrl(request, opts.publicUrl);
    const runs = await scheduler.runs(accountOf(request), taskIdOf(request));
    return { runs: runs.map((run) => withFileUrls(run, base)) };
  });

  app.get('/tasks/:id/changes', async (request) => {
    const base = filesBaseUrl(request, opts.publicUrl);
    const changes = await scheduler.changes(accountOf(request), taskIdOf(request));
    return { changes: changes.map((run) => withFileUrls(run, base)) };
  });
}
