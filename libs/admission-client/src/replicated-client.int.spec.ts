import { createServer, type Http2Server } from 'node:http2';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthQuotaServiceService, type AdmissionOutcome, type AdmitRequestRequest } from '@app/proto/authquota';
import { startGrpcServer, unaryHandler, type GrpcServer } from '@app/rpc';
import { createLogger } from '@app/logging';
import { AppError } from '@app/errors';
import { batchedAdmissions } from './batched-admissions.js';
import { replicatedAuthQuotaClient } from './replicated-client.js';

// Two replicas: a real AuthQuotaService, and one that dies while it answers (it sends the response
// headers of every call, then its connection drops). gRPC's own retry policy never repeats a call
// once headers came back; every admission must still be answered, by the live replica.
let live: GrpcServer;
let dying: Http2Server;
let callsToDying = 0;
const admittedIds: string[] = [];
const logger = createLogger('replicated-client-test', { level: 'silent' });

beforeAll(async () => {
  live = await startGrpcServer('127.0.0.1:0', [
    {
      definition: AuthQuotaServiceService,
      implementation: {
        admitRequests: unaryHandler<{ requests: AdmitRequestRequest[] }, { outcomes: AdmissionOutcome[] }>(async (req) => {
          admittedIds.push(...req.requests.map((r) => r.admission_id ?? ''));
          return {
            outcomes: req.requests.map(() => ({
              result: {
                $case: 'admitted' as const,
                value: { account: { account_id: 'acc_1', plan: 'scale', signature_required: false, billing_status: 'paid', name: 'A' } },
              },
            })),
          };
        }, logger),
      },
    },
  ]);
  dying = createServer();
  dying.on('stream', (stream) => {
    callsToDying++;
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    setTimeout(() => stream.session?.destroy(), 50);
  });
  await new Promise<void>((resolve) => dying.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await live?.stop(100);
  await new Promise((resolve) => dying?.close(resolve));
});

describe('An auth-quota client over two replicas', () => {
  describe('When one replica drops its connection after it started answering', () => {
    it('should answer every admission from the other, within the call budget', async () => {
      const client = replicatedAuthQuotaClient(`127.0.0.1:${(dying.address() as AddressInfo).port},127.0.0.1:${live.port}`);
      const admit = batchedAdmissions(client);
      try {
        for (let i = 0; i < 20; i++) {
          const res = await admit({ access_key: 'ak', usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0), admission_id: `adm_${i}` });
          expect(res.account?.account_id).toBe('acc_1');
        }
      } finally {
        client.close();
      }
      expect(callsToDying).toBeGreaterThan(0);
      // Each admission reached the live replica under its own id (a repeat would be recognised by it).
      expect(new Set(admittedIds)).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `adm_${i}`)));
    });
  });

  describe('When no replica can be reached', () => {
    it('should fail at once with service_unavailable, not wait out the call budget', async () => {
      // A port nobody listens on any more.
      const closed = createTcpServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const client = replicatedAuthQuotaClient(`127.0.0.1:${port}`);
      try {
        const started = Date.now();
        const err = await batchedAdmissions(client)({ access_key: 'ak', usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0) }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({ code: 'service_unavailable' });
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        client.close();
      }
    });
  });
});
