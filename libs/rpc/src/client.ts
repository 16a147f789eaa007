import { Metadata, type CallOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/** Calls a unary method of a ts-proto grpc-js client as a promise, with a deadline; errors come back as AppErrors. */
export function callUnary<C extends Client, Req, Res>(
  client: C,
  method: UnaryMethod<Req, Res>,
  request: Req,
  opts: { timeoutMs?: number } = {},
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    method.call(
      client,
      request,
      new Metadata(),
      { deadline: new Date(Date.now() + (opts.timeoutMs ?? 5_000)) },
      (error, response) => (error ? reject(fromServiceError(error)) : resolve(response)),
    );
  });
}
