import type { KV } from '@nats-io/kv';

/** The value of a lease entry: who holds it, until when (unix ms). */
interface LeaseValue {
  holder: string;
  untilMs: number;
}

export interface KvLease {
  /**
   * Takes the lease, or keeps it when this holder has it: true when this holder holds it until
   * `ttlMs` from now. False while another holder's lease is live, or when another holder took it at the
   * same moment. Each take and renewal is a compare-and-set on the entry, so two holders never both hold it.
   */
  acquire(): Promise<boolean>;
  /** Gives the lease up at once (stopping), if this holder has it. */
  release(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function read(bytes: Uint8Array): LeaseValue | undefined {
  try {
    const v = JSON.parse(decoder.decode(bytes)) as Partial<LeaseValue>;
    return typeof v.holder === 'string' && typeof v.untilMs === 'number' ? { holder: v.holder, untilMs: v.untilMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A lease over one key of a JetStream KV bucket: at most one holder at a time among every process that
 * shares the bucket, for periodic work one replica should do (a sweep). nats-server 2.9 has no
 * per-message TTL, so the expiry is a time in the value; a holder that stops renewing (it died) is
 * replaced once its lease has run out.
 */
export function kvLease(kv: KV, key: string, opts: { holder: string; ttlMs: number; now?: () => number }): KvLease {
  const now = opts.now ?? Date.now;
  const value = () => encoder.encode(JSON.stringify({ holder: opts.holder, untilMs: now() + opts.ttlMs } satisfies LeaseValue));
  return {
    async acquire() {
      const entry = await kv.get(key);
      const current = entry && entry.operation === 'PUT' ? read(entry.value) : undefined;
      if (current && current.holder !== opts.holder && current.untilMs > now()) return false;
      try {
        if (entry) await kv.update(key, value(), entry.revision);
        else await kv.create(key, value());
        return true;
      } catch {
        // Somebody wrote the entry since it was read: theirs is the lease.
        return false;
      }
    },
    async release() {
      const entry = await kv.get(key);
      const current = entry && entry.operation === 'PUT' ? read(entry.value) : undefined;
      if (!entry || current?.holder !== opts.holder) return;
      await kv.update(key, encoder.encode(JSON.stringify({ holder: opts.holder, untilMs: 0 })), entry.revision).catch(() => undefined);
    },
  };
}
