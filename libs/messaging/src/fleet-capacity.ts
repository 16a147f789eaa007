import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { BUCKETS } from './topology.js';

/**
 * The fleet's render capacity: every renderer writes how many renders it runs at once (its slots) to the
 * renderer-capacity bucket under its own key, again every CAPACITY_HEARTBEAT_MS, and removes it when it
 * stops. Whoever needs the fleet's capacity (auth-quota, to keep an account's renders in flight below it)
 * watches the bucket and adds up the slots of the renderers heard from within CAPACITY_STALE_MS: a killed
 * renderer stops counting that long after its last heartbeat, and the bucket's TTL removes its key.
 */
export const CAPACITY_HEARTBEAT_MS = 5_000;
export const CAPACITY_STALE_MS = 3 * CAPACITY_HEARTBEAT_MS;

const KEY_PREFIX = 'renderer.';
const keyOf = (rendererId: string) => `${KEY_PREFIX}${rendererId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export interface CapacityReport {
  slots: number;
  /** When the report was written (the server's time of the entry). */
  atMs: number;
}

/** Slots of the renderers heard from recently enough (undefined: none is). */
export function fleetCapacity(reports: Iterable<CapacityReport>, nowMs: number): number | undefined {
  let total: number | undefined;
  for (const r of reports) if (r.atMs > nowMs - CAPACITY_STALE_MS && r.slots > 0) total = (total ?? 0) + r.slots;
  return total;
}

const decodeSlots = (bytes: Uint8Array): number => {
  try {
    const { slots } = JSON.parse(new TextDecoder().decode(bytes)) as { slots?: unknown };
    return typeof slots === 'number' && Number.isInteger(slots) && slots > 0 ? slots : 0;
  } catch {
    return 0;
  }
};

export interface CapacityHeartbeat {
  stop(): Promise<void>;
}

/** A renderer's heartbeat: its slots now and every CAPACITY_HEARTBEAT_MS, its key removed on stop. */
export async function startCapacityHeartbeat(
  nc: NatsConnection,
  opts: { rendererId: string; slots: number; onError?: (err: unknown) => void; kv?: KV },
): Promise<CapacityHeartbeat> {
  const kv = opts.kv ?? (await new Kvm(nc).open(BUCKETS.rendererCapacity.name));
  const key = keyOf(opts.rendererId);
  const value = JSON.stringify({ slots: opts.slots });
  const beat = () => kv.put(key, value).then(() => undefined, (err: unknown) => opts.onError?.(err));
  await beat();
  const timer = setInterval(() => void beat(), CAPACITY_HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await kv.delete(key).catch((err: unknown) => opts.onError?.(err));
    },
  };
}

export interface FleetCapacity {
  /** Render slots of the live renderers; undefined while none has reported. */
  capacity(): number | undefined;
  stop(): void;
}

/** Follows the renderers' heartbeats (every key's last value, then each change). */
export async function watchFleetCapacity(nc: NatsConnection, opts: { now?: () => number; kv?: KV } = {}): Promise<FleetCapacity> {
  const now = opts.now ?? Date.now;
  const kv = opts.kv ?? (await new Kvm(nc).open(BUCKETS.rendererCapacity.name));
  const reports = new Map<string, CapacityReport>();
  const watch = await kv.watch({ key: `${KEY_PREFIX}>` });
  void (async () => {
    for await (const entry of watch) {
      if (entry.operation === 'PUT') reports.set(entry.key, { slots: decodeSlots(entry.value), atMs: entry.created.getTime() });
      else reports.delete(entry.key);
    }
  })();
  return {
    capacity: () => fleetCapacity(reports.values(), now()),
    stop: () => watch.stop(),
  };
}
