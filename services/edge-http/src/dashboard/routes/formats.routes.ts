import type { FastifyInstance } from 'fastify';
import { RESULT_FORMATS } from '@app/render-params';

/** Every render operation's output formats as the API validates them (libs/render-params), for the playground. */
export async function formatsRoutes(app: FastifyInstance) {
  app.get('/formats', async () => ({ formats: RESULT_FORMATS }));
}
