import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyInstance } from 'fastify';
import type { OpenResultFile } from '../../results/index.js';
import { setResultHeaders } from '../result-policy.js';

/**
 * GET /v1/files/{name}: a kept render result, public by its unguessable name until it expires (the
 * name is the capability, so no key is asked for), then 404 file_not_found.
 */
export async function filesRoutes(app: FastifyInstance, opts: { openResultFile: OpenResultFile }) {
  app.get<{ Params: { name: string } }>('/v1/files/:name', async (request, reply) => {
    const { file, body } = await opts.openResultFile(request.params.name);
    const maxAge = Math.max(0, Math.floor((file.expiresUnixMs - Date.now()) / 1000));
    void setResultHeaders(reply, file, file.attachmentName)
      .header('content-length', String(file.size))
      .header('cache-control', `private, max-age=${maxAge}`)
      .header('expires', new Date(file.expiresUnixMs).toUTCString())
      .header('x-robots-tag', 'noindex');
    return reply.send(Readable.fromWeb(body as NodeReadableStream<Uint8Array>));
  });
}
