import { afterEach, describe, expect, it } from 'vitest';
import { errors } from '@app/errors';
import type { AdmitRequest, Admitted } from '../application/ports.js';
import type { AuthQuotaClient } from './auth-quota-client.js';
import { rateLeases, type RateLeases } from './rate-leases.js';

const hit = (over: Partial<AdmitRequest> = {}): AdmitRequest => ({
  accessKey: 'ak_1',
  usage: 'render',
  deferQuota: true,
  features: [],
  signedQuery: '',
  body: new Uint8Array(),
  ...over,
});

/**
 * auth-quota's rate window as the edge sees it: each admission counts one unit, a lease counts its units
 * at once (never more than a quarter of what is left), a returned lease gives its unspent units back once.
 */
function windowedAuthQuota(limit: number) {
  let count = 0;
  let seq = 0;
  const leases = new Map<string, number>();
  const asked: (number | undefined)[] = [];
  const returned: { leaseId: string; unused: number }[] = [];
  const pending: (() => void)[] = [];
  let hold = false;
  const inner: AuthQuotaClient = {
    async admit(r) {
      asked.push(r.leaseUnits);
      if (hold) await new Promise<void>((resolve) => pending.push(resolve));
      if (r.accessKey !== 'ak_1' && r.accessKey !== 'ak_2') throw errors.accessKeyInvalid();
      if (count >= limit) throw errors.rateLimited(1);
      count += 1;
      const admitted: Admitted = { account: { accountId: `acc_${r.accessKey}`, plan: 'basic' }, rateLimit: { limit, remaining: 0, resetUnix: 60 } };
      const units = Math.min(r.leaseUnits ?? 0, Math.floor((limit - count) / 4));
      if (units > 0) {
        const id = `lease_${++seq}`;
        count += units;
        leases.set(id, units);
        admitted.lease = { id, units, validMs: 1_000 };
      }
      admitted.rateLimit.remaining = limit - count;
      return admitted;
    },
    async returnLease(_accountId, leaseId, unused) {
      returned.push({ leaseId, unused });
      const granted = leases.get(leaseId);
      if (granted === undefined) return;
      leases.delete(leaseId);
      count -= Math.min(unused, granted);
    },
    reserve: async () => 'r',
    endReservation: async () => undefined,
    usage: async () => {
      throw new Error('not used');
    },
  };
  return {
    inner,
    asked,
    returned,
    count: () => count,
    holdAnswers: () => void (hold = true),
    release: () => {
      hold = false;
      pending.splice(0).forEach((resolve) => resolve());
    },
  };
}

const opened: RateLeases[] = [];
function leasesOver(inner: AuthQuotaClient, clock: { t: number }, over: Parameters<typeof rateLeases>[1] = {}) {
  const leases = rateLeases(inner, { now: () => clock.t, minUnits: 4, maxUnits: 64, hotWithinMs: 1_000, settleMs: 1_000, ...over });
  opened.push(leases);
  return leases;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

describe('rateLeases', () => {
  describe('When a key is quiet', () => {
    it('should admit each request through auth-quota without asking for a lease', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      clock.t = 5_000;
      await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, undefined]);
      expect(leases.heldUnits()).toBe(0);
    });
  });

  describe('When asked whether it leases a key', () => {
    it('should say so from the lease granted until the lease is retired (spent past its life, or its account changed)', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      expect(leases.admitter.leasesKey('ak_1')).toBe(false);
      await leases.admitter.admit(hit());
      expect(leases.admitter.leasesKey('ak_1')).toBe(true);
      expect(leases.admitter.leasesKey('ak_2')).toBe(false);
      // Both usages of a key hold a lease of their own: the key is leased while either is.
      await leases.admitter.admit(hit({ features: ['block_ads'] }));
      await leases.admitter.admit(hit({ features: ['block_ads'] }));
      leases.accountChanged('acc_ak_1');
      expect(leases.admitter.leasesKey('ak_1')).toBe(false);
      clock.t = 2_000;
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      expect(leases.admitter.leasesKey('ak_1')).toBe(true);
      clock.t = 4_000;
      leases.sweep();
      expect(leases.admitter.leasesKey('ak_1')).toBe(false);
    });
  });

  describe('When a key is busy', () => {
    it('should admit later requests here from a lease, counting the remaining units down', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      // Spent to its last unit, not renewed ahead (that is the next describe's).
      const leases = leasesOver(aq.inner, clock, { renewAfter: 1 });
      await leases.admitter.admit(hit());
      const second = await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, 4]);
      // 1 + 1 counted, 4 leased: 994 left in the window, 4 of them held here.
      expect(second.rateLimit.remaining).toBe(998);
      const local = [1, 2, 3, 4].map(() => leases.admitter.tryNow(hit()));
      expect(local.map((a) => a?.rateLimit.remaining)).toEqual([997, 996, 995, 994]);
      expect(local.every((a) => a?.account.accountId === 'acc_ak_1')).toBe(true);
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      // The next lease asks for twice what the last one spent (spent slowly: 4 units in 900 ms).
      clock.t = 900;
      await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, 4, 8]);
      expect(aq.count()).toBe(1 + 5 + 9);
    });

    it('should ask for one lease when many requests arrive at once, and serve them from it', async () => {
      const aq = windowedAuthQuota(10_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock, { minUnits: 16 });
      await leases.admitter.admit(hit());
      const burst = await Promise.all(Array.from({ length: 10 }, () => leases.admitter.admit(hit())));
      expect(burst).toHaveLength(10);
      expect(aq.asked).toEqual([undefined, 16]);
      expect(leases.heldUnits()).toBe(16 - 9);
    });

    it("should ask, once a burst spent its lease within milliseconds, for what the key spends in a lease's life at that rate", async () => {
      const aq = windowedAuthQuota(1_000_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock, { minUnits: 16, maxUnits: 8_192, renewAfter: 1 });
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, 16]);
      // 16 units gone in 4 ms: 4,000 a second.
      clock.t = 4;
      for (let i = 0; i < 16; i += 1) expect(leases.admitter.tryNow(hit())).toBeDefined();
      await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, 16, 4_000]);
      // Never more than the most a lease may ask for.
      clock.t = 5;
      for (let i = 0; i < 4_000; i += 1) expect(leases.admitter.tryNow(hit())).toBeDefined();
      await leases.admitter.admit(hit());
      expect(aq.asked).toEqual([undefined, 16, 4_000, 8_192]);
    });

    it('should count the requests that waited for a lease and found it spent, so the next lease covers them', async () => {
      const aq = windowedAuthQuota(1_000_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock, { minUnits: 16, maxUnits: 8_192, renewAfter: 1 });
      await leases.admitter.admit(hit());
      aq.holdAnswers();
      // One asks for a lease (16 units); 39 more arrive while it comes: 16 spend it, 23 go to auth-quota.
      const burst = Promise.all(Array.from({ length: 40 }, () => leases.admitter.admit(hit())));
      clock.t = 10;
      aq.release();
      await burst;
      expect(aq.asked.filter((u) => u !== undefined)).toEqual([16]);
      // 16 spent and 23 admitted one by one in 10 ms: the next lease asks for a second of 39 per 10 ms.
      await leases.admitter.admit(hit());
      expect(aq.asked.filter((u) => u !== undefined)).toEqual([16, 3_900]);
    });

    it('should never let requests with another key, a signature, other features or a quota reservation spend it', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      expect(leases.heldUnits()).toBe(4);
      for (const other of [
        hit({ accessKey: 'ak_2' }),
        hit({ signature: 'abc' }),
        hit({ bodySignature: 'abc' }),
        hit({ features: ['gpu_rendering'] }),
        hit({ deferQuota: false }),
        hit({ usage: 'read' }),
      ]) {
        expect(leases.admitter.tryNow(other)).toBeUndefined();
      }
      expect(leases.heldUnits()).toBe(4);
    });
  });

  describe("When a busy key's lease nears its end", () => {
    /** A key admitted twice: it holds a lease of 16 units, due for renewal at 750 ms or 4 units left. */
    async function leasedKey(inner: AuthQuotaClient) {
      const clock = { t: 0 };
      const leases = leasesOver(inner, clock, { minUnits: 16 });
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      expect(leases.heldUnits()).toBe(16);
      return { clock, leases };
    }

    it('should ask for the next lease with one request while the others go on spending this one, so none waits', async () => {
      const aq = windowedAuthQuota(10_000);
      const { clock, leases } = await leasedKey(aq.inner);
      for (let i = 0; i < 10; i += 1) expect(leases.admitter.tryNow(hit())).toBeDefined();
      clock.t = 800;
      // This one renews: it goes to auth-quota, asking for twice what was spent.
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      aq.holdAnswers();
      const renewing = leases.admitter.admit(hit());
      // Meanwhile the lease admits the others at once, counting down.
      const meanwhile = [1, 2].map(() => leases.admitter.tryNow(hit()));
      expect(meanwhile.map((a) => a?.rateLimit.remaining)).toEqual([10_000 - 18 + 5, 10_000 - 18 + 4]);
      aq.release();
      await renewing;
      expect(aq.asked).toEqual([undefined, 16, 20]);
      // The lease it replaced gives back what it did not spend; the new one outlives the old one's end.
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 4 }]);
      clock.t = 1_200;
      expect(leases.admitter.tryNow(hit())).toBeDefined();
      expect(leases.heldUnits()).toBe(19);
      expect(aq.count()).toBe(1 + 1 + 12 + 1 + 20);
    });

    it('should renew once its units run low, before they run out', async () => {
      const aq = windowedAuthQuota(10_000);
      const { clock, leases } = await leasedKey(aq.inner);
      for (let i = 0; i < 12; i += 1) expect(leases.admitter.tryNow(hit())).toBeDefined();
      clock.t = 600;
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      await leases.admitter.admit(hit());
      // Twice the 12 spent (at their rate, 600 ms of them, a second would be 20).
      expect(aq.asked).toEqual([undefined, 16, 24]);
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 4 }]);
    });

    /** auth-quota that refuses the next admission with `err` when told to. */
    function refusingOnce(inner: AuthQuotaClient) {
      let refusal: Error | undefined;
      const refusing: AuthQuotaClient = {
        ...inner,
        admit: (r) => {
          const err = refusal;
          refusal = undefined;
          return err ? Promise.reject(err) : inner.admit(r);
        },
      };
      return { inner: refusing, refuseNext: (err: Error) => void (refusal = err) };
    }

    it('should admit from the lease a request whose renewal was rate limited, and not ask again for that lease', async () => {
      const aq = windowedAuthQuota(10_000);
      const refusing = refusingOnce(aq.inner);
      const { clock, leases } = await leasedKey(refusing.inner);
      clock.t = 800;
      refusing.refuseNext(errors.rateLimited(1));
      const admitted = await leases.admitter.admit(hit());
      expect(admitted.rateLimit.remaining).toBe(10_000 - 18 + 15);
      // The lease runs on to its end without another renewal.
      expect(leases.admitter.tryNow(hit())).toBeDefined();
      expect(aq.asked).toEqual([undefined, 16]);
      expect(leases.heldUnits()).toBe(14);
    });

    it('should drop the lease and give its units back when its renewal finds the key refused', async () => {
      const aq = windowedAuthQuota(10_000);
      const refusing = refusingOnce(aq.inner);
      const { clock, leases } = await leasedKey(refusing.inner);
      clock.t = 800;
      refusing.refuseNext(errors.accessKeyInvalid());
      await expect(leases.admitter.admit(hit())).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      expect(leases.heldUnits()).toBe(0);
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 16 }]);
    });
  });

  describe('When a lease expires with units unspent', () => {
    it('should stop spending it and give exactly the unspent units back', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      leases.admitter.tryNow(hit());
      clock.t = 1_000;
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      leases.sweep();
      await Promise.resolve();
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 3 }]);
      expect(aq.count()).toBe(3);
      expect(leases.heldUnits()).toBe(0);
    });
  });

  describe('When the account changes', () => {
    it('should drop its leases at once and give their units back', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      leases.accountChanged('acc_ak_1');
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      await Promise.resolve();
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 4 }]);
    });

    it('should give back, unspent, a lease whose asking crossed the change, and keep none for a while after', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      aq.holdAnswers();
      const asking = leases.admitter.admit(hit());
      leases.accountChanged('acc_ak_1');
      aq.release();
      await asking;
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      expect(aq.returned).toEqual([{ leaseId: 'lease_1', unused: 4 }]);
      clock.t = 500;
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      // While the change settles the key is admitted by auth-quota alone.
      expect(aq.asked).toEqual([undefined, 4, undefined, undefined]);
      expect(leases.admitter.tryNow(hit())).toBeUndefined();
      clock.t = 1_600;
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      expect(leases.admitter.tryNow(hit())).toBeDefined();
    });

    it('should keep the leases of other accounts', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await leases.admitter.admit(hit());
      await leases.admitter.admit(hit());
      leases.accountChanged('acc_other');
      expect(leases.admitter.tryNow(hit())).toBeDefined();
    });
  });

  describe('When auth-quota refuses', () => {
    it('should pass the refusal on and keep no lease', async () => {
      const aq = windowedAuthQuota(1_000);
      const clock = { t: 0 };
      const leases = leasesOver(aq.inner, clock);
      await expect(leases.admitter.admit(hit({ accessKey: 'ak_bad' }))).rejects.toMatchObject({ code: 'access_key_invalid' });
      await expect(leases.admitter.admit(hit({ accessKey: 'ak_bad' }))).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(leases.heldUnits()).toBe(0);
    });
  });

  describe('When two edges share an account near its limit', () => {
    it('should never admit more requests than the limit, and admit every unit once the leases are given back', async () => {
      const limit = 50;
      const aq = windowedAuthQuota(limit);
      const clock = { t: 0 };
      const edges = [leasesOver(aq.inner, clock), leasesOver(aq.inner, clock)];
      let admitted = 0;
      let refused = 0;
      for (let i = 0; i < 200; i += 1) {
        const edge = edges[i % 2]!;
        try {
          if (!edge.admitter.tryNow(hit())) await edge.admitter.admit(hit());
          admitted += 1;
        } catch (err) {
          expect(err).toMatchObject({ code: 'rate_limited' });
          refused += 1;
        }
      }
      expect(admitted).toBeLessThanOrEqual(limit);
      // What the leases still hold comes back when they end, and is then admitted.
      await Promise.all(edges.map((e) => e.close()));
      const edge = leasesOver(aq.inner, clock);
      while (aq.count() < limit) {
        await edge.admitter.admit(hit());
        admitted += 1;
      }
      expect(admitted).toBe(limit);
      expect(refused).toBeGreaterThan(0);
    });
  });
});
