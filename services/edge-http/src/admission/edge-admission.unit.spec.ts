import { afterEach, describe, expect, it } from 'vitest';
import { errors } from '@app/errors';
import type { AdmitRequest } from '../application/ports.js';
import type { AuthQuotaClient } from './auth-quota-client.js';
import { edgeAdmission, type EdgeAdmission } from './edge-admission.js';

const hit = (accessKey = 'ak_good'): AdmitRequest => ({ accessKey, usage: 'render', deferQuota: true, features: [], signedQuery: '', body: new Uint8Array() });

/** auth-quota knowing one key; it grants the leases asked for and keeps every call. */
function authQuota() {
  const calls: AdmitRequest[] = [];
  const returned: number[] = [];
  const client: AuthQuotaClient = {
    async admit(r) {
      calls.push(r);
      if (r.accessKey !== 'ak_good') throw errors.accessKeyInvalid();
      const lease = r.leaseUnits ? { id: `lease-${calls.length}`, units: r.leaseUnits, validMs: 1_000 } : undefined;
      return { account: { accountId: 'acc', plan: 'basic' }, rateLimit: { limit: 1_000, remaining: 900, resetUnix: 60 }, ...(lease ? { lease } : {}) };
    },
    async returnLease(_accountId, _leaseId, unused) {
      returned.push(unused);
    },
    reserve: async () => 'res',
    endReservation: async () => undefined,
    usage: async () => {
      throw new Error('not used');
    },
  };
  return { client, calls, returned };
}

const opened: EdgeAdmission[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

function seam(client: AuthQuotaClient) {
  const t = 1_000_000;
  const admission = edgeAdmission(client, { refusedKeyTtlMs: 10_000, now: () => t });
  opened.push(admission);
  return admission;
}

describe('The edge admission seam', () => {
  describe('When a key is busy', () => {
    it('should admit its next requests with tryNow, without a call, until its account changes', async () => {
      const aq = authQuota();
      const { admitter, accountChanged, heldUnits } = seam(aq.client);
      expect(admitter.tryNow(hit())).toBeUndefined();
      await admitter.admit(hit());
      await admitter.admit(hit()); // busy now: this one asks for a lease
      expect(aq.calls.map((c) => c.leaseUnits)).toEqual([undefined, 16]);
      const here = admitter.tryNow(hit());
      expect(here?.account.accountId).toBe('acc');
      expect(aq.calls).toHaveLength(2);
      accountChanged('acc');
      expect(admitter.tryNow(hit())).toBeUndefined();
      expect(heldUnits()).toBe(0);
      // The unspent units went back to auth-quota.
      expect(aq.returned).toEqual([15]);
    });
  });

  describe('When auth-quota refused a key', () => {
    it('should refuse it again from memory until any key changes', async () => {
      const aq = authQuota();
      const { admitter, keysChanged } = seam(aq.client);
      await expect(admitter.admit(hit('ak_bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      await expect(admitter.admit(hit('ak_bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(aq.calls).toHaveLength(1);
      keysChanged();
      await expect(admitter.admit(hit('ak_bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(aq.calls).toHaveLength(2);
    });
  });

  describe('When a request is signed', () => {
    it('should never be admitted from a lease (the lease terms auth-quota applies)', async () => {
      const aq = authQuota();
      const { admitter } = seam(aq.client);
      const signed = { ...hit(), signature: 'abc' };
      await admitter.admit(signed);
      await admitter.admit(signed);
      expect(aq.calls.map((c) => c.leaseUnits)).toEqual([undefined, undefined]);
      expect(admitter.tryNow(signed)).toBeUndefined();
    });
  });
});
