import { setTimeout as sleep } from 'node:timers/promises';
import { type KV } from '@app/messaging';
import { keyToken } from '@app/render-contracts';
import type { RecentRenders, RenderStatusStore } from './ports.js';

/** How many async renders the dashboard lists per account. */
export const RECENT_RENDERS_KEPT = 50;
const MAX_CAS_ATTEMPTS = 25;

const recentKey = (accountId: string) => `recent.${keyToken(accountId)}`;
const encode = (ids: string[]) => new TextEncoder().encode(JSON.stringify(ids));
const decode = (bytes: Uint8Array): string[] => {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/**
 * One key per account in the render-status bucket (`recent.<account>`) holding the ids of its latest
 * async renders, newest first, at most RECENT_RENDERS_KEPT: listing an account's renders is one read,
 * never a scan of every render. Updated by compare-and-set, so edges writing at once lose nothing.
 */
export function kvRecentRenders(kv: KV, kept = RECENT_RENDERS_KEPT): RecentRenders {
  return {
    async add(accountId, renderId) {
      const key = recentKey(accountId);
      for (let attempt = 1; ; attempt++) {
        const entry = await kv.get(key);
        const current = entry && entry.operation === 'PUT' ? decode(entry.value) : [];
        const next = encode([renderId, ...current.filter((id) => id !== renderId)].slice(0, kept));
        try {
          if (entry && entry.operation === 'PUT') await kv.update(key, next, entry.revision);
          else await kv.create(key, next);
          return;
        } catch (err) {
          // Another edge wrote first: add again on top of what it wrote.
          if (attempt >= MAX_CAS_ATTEMPTS) throw err;
          await sleep(Math.random() * 5 * attempt);
        }
      }
    },
    async list(accountId) {
      const entry = await kv.get(recentKey(accountId));
      return entry && entry.operation === 'PUT' ? decode(entry.value) : [];
    },
  };
}

/** The render status store, with every new render added to its account's recent list. */
export function indexedRenderStatus(
  statuses: RenderStatusStore,
  recent: RecentRenders,
  onIndexError: (err: unknown) => void,
): RenderStatusStore {
  return {
    ...statuses,
    async create(record) {
      await statuses.create(record);
      await recent.add(record.accountId, record.id).catch(onIndexError);
    },
  };
}
