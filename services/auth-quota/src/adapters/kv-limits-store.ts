import { LRUCache } from 'lru-cache';
import { isBusUnavailable, isWrongRevision, type KV } from '@app/messaging';
import { emptyLimits, type LimitsState } from '../domain/limits/account-limits.js';
import type { LimitsStore } from '../application/ports.js';

const MAX_CAS_ATTEMPTS = 50;
/**
 * How long a change is tried again while the bucket cannot be reached for a moment: its leader being
 * elected after a NATS node was lost, 5 to 7 s on nats-server 2.9 (kv-limits-store-failover.int.spec.ts);
 * within the edge's 10 s deadline for an admission. A write whose
 * answer was lost may have been stored: the change is then decided again on the value read back, which
 * a reservation survives (its id is already open) and which may count one request twice in the rate
 * window.
 */
const BUS_RETRY_MS = 8_000;

/**
 * How long one request to the bucket may wait for its answer: short, so that a request sent to a leader
 * just lost is sent again within BUS_RETRY_MS rather than waiting out the client's default of 5 s.
 */
export const LIMITS_REQUEST_TIMEOUT_MS = 1_000;

const keyOf = (accountId: string) => `account.${accountId}`;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const decode = (bytes: Uint8Array): LimitsState => ({ ...emptyLimits(), ...(JSON.parse(decoder.decode(bytes)) as LimitsState) });


interface Pending {
  decide: (state: LimitsState) => unknown;
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Account limits in the quota-limits KV bucket, changed by compare-and-set on the entry's revision: a
 * change is decided on the latest value this replica saw and written only if nobody wrote since; when
 * someone did, it is decided again on the fresh value. The common case (this replica wrote last) is one
 * round trip.
 *
 * Changes of one account on this replica are written one write at a time, and the changes that arrive
 * while a write is under way go together in the next (each decided in arrival order, as if alone): a
 * burst of settlements of one account costs a few writes, not a compare-and-set race among hundreds.
 */
export function kvLimitsStore(kv: KV, opts: { maxCachedAccounts?: number; busRetryMs?: number } = {}): LimitsStore {
  const busRetryMs = opts.busRetryMs ?? BUS_RETRY_MS;
  const seen = new LRUCache<string, { json: string; revision: number }>({ max: opts.maxCachedAccounts ?? 50_000 });
  /** Per account: changes waiting for the write under way to finish. */
  const queued = new Map<string, Pending[]>();

  const fetch = async (accountId: string) => {
    const entry = await kv.get(keyOf(accountId));
    const latest =
      entry && entry.operation === 'PUT'
        ? { json: JSON.stringify(decode(entry.value)), revision: entry.revision }
        : { json: JSON.stringify(emptyLimits()), revision: entry?.revision ?? 0 };
    seen.set(accountId, latest);
    return latest;
  };

  /**
   * Decides every change of the batch on one draft, in order. A change that throws (a defect: decisions
   * return their refusals) is left out and the others are decided again without it, from the value read.
   */
  const decideAll = (json: string, batch: Pending[]) => {
    const failed = new Map<Pending, unknown>();
    for (;;) {
      const draft = JSON.parse(json) as LimitsState;
      const results = new Map<Pending, unknown>();
      try {
        for (const p of batch) if (!failed.has(p)) results.set(p, p.decide(draft));
        return { draft, results, failed };
      } catch (err) {
        failed.set(batch.find((p) => !failed.has(p) && !results.has(p))!, err);
      }
    }
  };

  /** Writes the account's queued changes, batch after batch, until none is left. */
  async function drain(accountId: string): Promise<void> {
    for (;;) {
      const batch = queued.get(accountId)!;
      if (batch.length === 0) {
        queued.delete(accountId);
        return;
      }
      queued.set(accountId, []);
      try {
        const started = Date.now();
        let current = seen.get(accountId);
        for (let attempt = 1; ; attempt++) {
          try {
            current ??= await fetch(accountId);
            const { draft, results, failed } = decideAll(current.json, batch);
            const json = JSON.stringify(draft);
            const revision = await kv.put(keyOf(accountId), encoder.encode(json), { previousSeq: current.revision });
            seen.set(accountId, { json, revision });
            for (const p of batch) failed.has(p) ? p.reject(failed.get(p)) : p.resolve(results.get(p));
            break;
          } catch (err) {
            current = undefined;
            if (isWrongRevision(err) && attempt < MAX_CAS_ATTEMPTS) continue;
            if (!isBusUnavailable(err) || Date.now() - started >= busRetryMs) throw err;
            await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** (attempt - 1), 1_000)));
          }
        }
      } catch (err) {
        seen.delete(accountId);
        for (const p of batch) p.reject(err);
      }
    }
  }

  return {
    async read(accountId) {
      return JSON.parse((await fetch(accountId)).json) as LimitsState;
    },

    change<R>(accountId: string, decide: (state: LimitsState) => R): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        const pending: Pending = { decide, resolve: resolve as (r: unknown) => void, reject };
        const batch = queued.get(accountId);
        if (batch) return void batch.push(pending);
        queued.set(accountId, [pending]);
        void drain(accountId);
      });
    },
  };
}
