import { LRUCache } from 'lru-cache';
import type { KV } from '@app/messaging';
import { emptyLimits, type LimitsState } from '../domain/limits/account-limits.js';
import type { LimitsStore } from '../application/ports.js';

const MAX_CAS_ATTEMPTS = 50;

const keyOf = (accountId: string) => `account.${accountId}`;
const encode = (state: LimitsState) => new TextEncoder().encode(JSON.stringify(state));
const decode = (bytes: Uint8Array): LimitsState => ({ ...emptyLimits(), ...(JSON.parse(new TextDecoder().decode(bytes)) as LimitsState) });

/** JetStream's answer when the entry moved since the revision we wrote against. */
function isWrongRevision(err: unknown): boolean {
  const e = err as { api_error?: { err_code?: number }; message?: string };
  return e?.api_error?.err_code === 10071 || /wrong last sequence/i.test(e?.message ?? '');
}

/**
 * Account limits in the quota-limits KV bucket, changed by compare-and-set on the entry's revision: a
 * change is decided on the latest value this replica saw and written only if nobody wrote since; when
 * someone did, it is decided again on the fresh value. The common case (this replica wrote last) is one
 * round trip.
 */
export function kvLimitsStore(kv: KV, opts: { maxCachedAccounts?: number } = {}): LimitsStore {
  const seen = new LRUCache<string, { json: string; revision: number }>({ max: opts.maxCachedAccounts ?? 50_000 });

  const fetch = async (accountId: string) => {
    const entry = await kv.get(keyOf(accountId));
    const latest =
      entry && entry.operation === 'PUT'
        ? { json: JSON.stringify(decode(entry.value)), revision: entry.revision }
        : { json: JSON.stringify(emptyLimits()), revision: entry?.revision ?? 0 };
    seen.set(accountId, latest);
    return latest;
  };

  return {
    async read(accountId) {
      return JSON.parse((await fetch(accountId)).json) as LimitsState;
    },

    async change(accountId, decide) {
      let current = seen.get(accountId) ?? (await fetch(accountId));
      for (let attempt = 1; ; attempt++) {
        const draft = JSON.parse(current.json) as LimitsState;
        const result = decide(draft);
        try {
          const revision = await kv.put(keyOf(accountId), encode(draft), { previousSeq: current.revision });
          seen.set(accountId, { json: JSON.stringify(draft), revision });
          return result;
        } catch (err) {
          if (!isWrongRevision(err) || attempt >= MAX_CAS_ATTEMPTS) {
            seen.delete(accountId);
            throw err;
          }
          current = await fetch(accountId);
        }
      }
    },
  };
}
