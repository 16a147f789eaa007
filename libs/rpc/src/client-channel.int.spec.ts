import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGenericClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';
import { callUnary } from './client.js';
import { grpcClient, grpcTarget } from './client-channel.js';
import { startGrpcServer, unaryHandler, type GrpcServer } from './server.js';

// Two replicas of a service that answers its own name, on real ports: a client built from their address
// list, in each form an operator may write it, reaches every replica.
const identity = (b: Buffer) => b;
const whoService: ServiceDefinition = {
  who: {
    path: '/test.v1.WhoService/Who',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};
const WhoClient = makeGenericClientConstructor(whoService, 'WhoService');
type Who = InstanceType<typeof WhoClient> & { who: Parameters<typeof callUnary>[1] };

const replicas: GrpcServer[] = [];

beforeAll(async () => {
  for (const name of ['a', 'b']) {
    replicas.push(
      await startGrpcServer('127.0.0.1:0', [
        { definition: whoService, implementation: { who: unaryHandler<Buffer, Buffer>(async () => Buffer.from(name)) } },
      ]),
    );
  }
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop(100)));
});

/** The replicas that answered 20 calls of a client built from `addresses`. */
async function answeredBy(addresses: string): Promise<Set<string>> {
  const client = grpcClient(WhoClient, addresses) as Who;
  try {
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) names.add(String(await callUnary(client, client.who, Buffer.alloc(0))));
    return names;
  } finally {
    client.close();
  }
}

describe('A gRPC client built from an address list', () => {
  describe('When given every replica, comma-separated (as AUTH_QUOTA_ADDR=host:port,host:port)', () => {
    it('should spread its calls over every replica', async () => {
      const list = replicas.map((r) => `127.0.0.1:${r.port}`).join(', ');
      expect(await answeredBy(list)).toEqual(new Set(['a', 'b']));
    });
  });

  describe('When given one address, by IP or by host name', () => {
    it('should reach that replica', async () => {
      expect(await answeredBy(`127.0.0.1:${replicas[1]!.port}`)).toEqual(new Set(['b']));
      expect(await answeredBy(`localhost:${replicas[0]!.port}`)).toEqual(new Set(['a']));
    });
  });

  describe('When the list mixes host names and addresses', () => {
    it('should refuse it with the list named, not fail each call later', () => {
      expect(() => grpcTarget('auth-quota-1:50051,auth-quota-2:50051')).toThrow(/auth-quota-1:50051,auth-quota-2:50051/);
      expect(() => grpcTarget('')).toThrow(/No gRPC address/);
    });
  });
});
