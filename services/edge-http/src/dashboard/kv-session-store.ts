import type { KV } from '@app/messaging';
import type { SessionRecord, SessionStore } from './ports.js';

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/**
 * Sessions in the dashboard-sessions KV bucket, shared by every edge replica. The bucket's TTL is the
 * session lifetime, so JetStream drops a session's record when it ends; the expiry inside the record is
 * checked on every read as well.
 */
export function kvSessionStore(kv: KV): SessionStore {
  return {
    async put(sessionId, record) {
      await kv.put(sessionId, encode(record));
    },
    async get(sessionId) {
      const entry = await kv.get(sessionId);
      if (!entry || entry.operation !== 'PUT') return undefined;
      try {
        return JSON.parse(new TextDecoder().decode(entry.value)) as SessionRecord;
      } catch {
        return undefined;
      }
    },
    async remove(sessionId) {
      await kv.delete(sessionId);
    },
  };
}
