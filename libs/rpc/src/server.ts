import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation, type handleUnaryCall, type ServerUnaryCall } from '@grpc/grpc-js';
import { toServiceError } from './errors.js';
import { recordRpc } from './server-metrics.js';

type Logger = { error: (obj: object, msg?: string) => void };

/** Adapts an async handler to grpc-js, translating thrown AppErrors into real gRPC statuses. */
export function unaryHandler<Req, Res>(
  fn: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
  logger?: Logger,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const startedMs = performance.now();
    fn(call.request, call).then(
      (res) => {
        recordRpc(call, startedMs, 0);
        callback(null, res);
      },
      (err: unknown) => {
        const serviceError = toServiceError(err, logger);
        recordRpc(call, startedMs, serviceError.code ?? 2);
        callback(serviceError);
      },
    );
  };
}

export interface GrpcServer {
  port: number;
  stop(graceMs?: number): Promise<void>;
}

/** Binds a gRPC server on `address` (host:port, port 0 picks one) with the given services. */
export async function startGrpcServer(
  address: string,
  services: { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[],
): Promise<GrpcServer> {
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  for (const s of services) server.addService(s.definition, s.implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    stop: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
