import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import {
  AuthQuotaServiceClient,
  AuthQuotaServiceService,
  type AdmissionOutcome,
  type AdmitRequestRequest,
  type AdmitRequestResponse,
} from '@app/proto/authquota';
import { startGrpcServer, unaryHandler, type GrpcServer } from '@app/rpc';
import { createLogger } from '@app/logging';
import { AppError, errors } from '@app/errors';
import { batchedAdmissions } from './batched-admissions.js';

// A real gRPC server whose AuthQuotaService records how requests arrive and decides by key:
// ak_good is admitted, ak_limited is rate limited, anything else is an unknown key.
const batches: number[] = [];
let singles = 0;
const decide = (req: AdmitRequestRequest): AdmitRequestResponse => {
  const rate = { limit: 10, remaining: 0, reset_unix: 1_800_000_000 };
  if (req.access_key === 'ak_good') return { account: { account_id: 'acc_1', plan: 'scale', signature_required: false, billing_status: 'paid', name: 'A' }, rate_limit: { ...rate, remaining: 9 } };
  if (req.access_key === 'ak_limited') {
    throw Object.assign(errors.rateLimited(7), { rateLimit: { limit: 10, remaining: 0, resetUnix: 1_800_000_000 } });
  }
  throw errors.accessKeyInvalid();
};
const outcomeOf = (req: AdmitRequestRequest): AdmissionOutcome => {
  try {
    return { result: { $case: 'admitted', value: decide(req) } };
  } catch (err) {
    const e = err as AppError;
    const rate_limit = e.rateLimit && { limit: e.rateLimit.limit, remaining: e.rateLimit.remaining, reset_unix: e.rateLimit.resetUnix };
    return { result: { $case: 'refused', value: { code: e.code, message: e.message, retry_after_seconds: e.retryAfterSeconds, rate_limit } } };
  }
};

let server: GrpcServer;
let client: AuthQuotaServiceClient;
const logger = createLogger('admission-client-test', { level: 'silent' });

beforeAll(async () => {
  server = await startGrpcServer('127.0.0.1:0', [
    {
      definition: AuthQuotaServiceService,
      implementation: {
        admitRequest: unaryHandler<AdmitRequestRequest, AdmitRequestResponse>(async (req) => {
          singles++;
          return decide(req);
        }, logger),
        admitRequests: unaryHandler<{ requests: AdmitRequestRequest[] }, { outcomes: AdmissionOutcome[] }>(async (req) => {
          batches.push(req.requests.length);
          return { outcomes: req.requests.map(outcomeOf) };
        }, logger),
      },
    },
  ]);
  client = new AuthQuotaServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.stop(100);
});

const request = (access_key: string, body = Buffer.alloc(0)): AdmitRequestRequest => ({ access_key, usage: 'render', features: [], signed_query: '', body });
const settle = (p: Promise<AdmitRequestResponse>) => p.then((r) => r.account?.account_id, (e: AppError) => e);

describe('batchedAdmissions', () => {
  describe('When admissions are asked in the same turn of the event loop', () => {
    it('should send them in one call and answer each at its position, refusals as AppErrors', async () => {
      const admit = batchedAdmissions(client);
      batches.length = 0;
      const results = await Promise.all(['ak_good', 'ak_wrong', 'ak_good', 'ak_limited'].map((k) => settle(admit(request(k)))));
      expect(batches).toEqual([4]);
      expect(results[0]).toBe('acc_1');
      expect(results[2]).toBe('acc_1');
      expect(results[1]).toMatchObject({ code: 'access_key_invalid', message: 'Invalid access key' });
      expect(results[3]).toBeInstanceOf(AppError);
      expect(results[3]).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 7, rateLimit: { limit: 10, remaining: 0, resetUnix: 1_800_000_000 } });
    });
  });

  describe('When admissions are asked one after the other', () => {
    it('should send each as it comes', async () => {
      const admit = batchedAdmissions(client);
      batches.length = 0;
      await admit(request('ak_good'));
      await admit(request('ak_good'));
      expect(batches).toEqual([1, 1]);
    });
  });

  describe('When a request carries a large signed body', () => {
    it('should admit it on its own', async () => {
      const admit = batchedAdmissions(client);
      batches.length = 0;
      const before = singles;
      await Promise.all([admit(request('ak_good', Buffer.alloc(64 * 1024))), admit(request('ak_good'))]);
      expect(singles).toBe(before + 1);
      expect(batches).toEqual([1]);
    });
  });
});
