import { randomBytes } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors, isAppError, toHttpError } from '@app/errors';
import { isBusUnavailable } from '@app/messaging';
import { currentTraceId } from '@app/telemetry';

/** HSTS as helmet sends it, for the answers given before helmet's hook runs. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** X-Service-Request-Id: the request's trace id (random when there is no trace). */
export const requestIdOf = (): string => currentTraceId() ?? randomBytes(16).toString('hex');

/** Fastify's own errors (URL, body parsing, content type, size) in the service's error vocabulary. */
function fromFastifyError(err: FastifyError): AppError {
  const status = err.statusCode ?? 500;
  if (err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError('bad_request', 'The request URL is not valid (a path segment is badly percent-encoded or too long).');
  }
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (status === 415) {
    return new AppError('unsupported_media_type', 'The request body must be JSON: send it with Content-Type: application/json.');
  }
  if (err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new AppError('bad_request', 'The Content-Length header does not match the request body.');
  }
  if (status >= 400 && status < 500) {
    return new AppError('invalid_parameter', 'The request body is not valid JSON.', {
      details: [{ parameter: 'body', message: 'must be a valid JSON object' }],
    });
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

/**
 * The one error handler: AppErrors keep their code and message; a bus unavailable for a moment (NATS
 * reconnecting, a stream electing its leader) is 503 service_unavailable with Retry-After; anything else
 * is a bare 500.
 */
export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appError = isAppError(err) ? err : isBusUnavailable(err) ? errors.serviceUnavailable(err) : fromFastifyError(err);
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

/**
 * Errors Fastify raises before any hook runs (a badly encoded URL): the same body, and the headers
 * the hooks would have added.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  void reply.headers({ 'x-service-request-id': requestIdOf(), 'strict-transport-security': HSTS, 'x-content-type-options': 'nosniff' });
  return errorHandler(err, request, reply);
}

function fromClientError(err: NodeJS.ErrnoException): AppError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new AppError('header_too_large', `The request headers are too large (at most ${maxHeaderSize} bytes in all).`);
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout', 'The request was not received in time.');
  return new AppError('bad_request', 'The request is not valid HTTP.');
}

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed request line, bad Content-Length)
 * never reach Fastify: the answer is written on the socket, in the same shape as every other error.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body } = toHttpError(fromClientError(err));
    const json = JSON.stringify(body);
    socket.write(
      [
        `HTTP/1.1 ${status} ${body.error}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(json)}`,
        `X-Service-Request-Id: ${requestIdOf()}`,
        `Strict-Transport-Security: ${HSTS}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        json,
      ].join('\r\n'),
    );
  }
  socket.destroy(err);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return reply.status(404).type('application/json; charset=utf-8').send({
    statusCode: 404,
    error: 'Not Found',
    message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
    code: 'not_found',
  });
}
