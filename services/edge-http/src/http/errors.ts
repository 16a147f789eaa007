import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError, toHttpError } from '@app/errors';

/** Fastify's own 4xx errors (body parsing, content type, size) in the service's error vocabulary. */
function fromFastifyError(err: FastifyError): AppError {
  const status = err.statusCode ?? 500;
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('invalid_parameter', 'The request body must be JSON (Content-Type: application/json).', {
      details: [{ parameter: 'body', message: 'Content-Type must be application/json' }],
    });
  }
  if (status >= 400 && status < 500) {
    return new AppError('invalid_parameter', 'The request body is not valid JSON.', {
      details: [{ parameter: 'body', message: 'must be a valid JSON object' }],
    });
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

/** The one error handler: AppErrors keep their code and message; anything else is a bare 500. */
export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appError = isAppError(err) ? err : fromFastifyError(err);
  const { status, body, retryAfterSeconds } = toHttpError(appError);
  if (status >= 500) request.log.error({ err, code: body.code }, 'request failed');
  if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
  if (appError.rateLimit) {
    void reply.headers({
      'x-ratelimit-limit': String(appError.rateLimit.limit),
      'x-ratelimit-remaining': String(appError.rateLimit.remaining),
      'x-ratelimit-reset': String(appError.rateLimit.resetUnix),
    });
  }
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return reply.status(404).type('application/json; charset=utf-8').send({
    statusCode: 404,
    error: 'Not Found',
    message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
    code: 'not_found',
  });
}
