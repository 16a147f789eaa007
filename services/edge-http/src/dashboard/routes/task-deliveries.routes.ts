import type { FastifyInstance } from 'fastify';
import type { WebhookState } from '@app/render-contracts';
import { taskIdOf, type TaskScheduler } from '../../tasks/index.js';
import { taskDeliveries } from '../task-deliveries.js';

/**
 * A monitoring task's announcements as delivered (its signed webhook and each notify channel, with their
 * attempts), read from where the dispatcher records them; another account's task is task_not_found.
 */
export async function taskDeliveriesRoutes(
  app: FastifyInstance,
  opts: { scheduler: TaskScheduler; deliveryState: (id: string) => Promise<WebhookState | undefined> },
) {
  app.get('/tasks/:id/deliveries', async (request) => {
    const accountId = request.dashboardSession!.account.accountId;
    const id = taskIdOf(request);
    const [task, runs] = await Promise.all([opts.scheduler.get(accountId, id), opts.scheduler.runs(accountId, id)]);
    return { deliveries: await taskDeliveries(task, runs, opts.deliveryState) };
  });
}
