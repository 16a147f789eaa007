import { RATE_LEASE_LIFE_MS, leaseEligible } from '@app/admission-client';
import { hasCode } from '@app/errors';
import type { AdmitRequest, Admitted, Admitter } from '../application/ports.js';
import type { AuthQuotaClient } from './auth-quota-client.js';

export interface RateLeaseOptions {
  /** Fewest and most units asked for at once (auth-quota may grant fewer). */
  minUnits: number;
  maxUnits: number;
  /** A key is leased once it was admitted twice within this (a quiet key is admitted request by request). */
  hotWithinMs: number;
  /** After a change of an account, no lease of it is taken for this long (every auth-quota replica has read the change by then). */
  settleMs: number;
  /**
   * A lease is renewed once this share of its life or of its units is gone: the next request asks for the
   * next lease while the others go on spending this one, so a busy key never waits for a lease.
   */
  renewAfter: number;
  /**
   * How long a lease lasts (auth-quota grants at most a second): a busy key asks for what it would spend
   * in that long at the rate it spent since its last ask, so a burst reaches its lease size in one step.
   */
  leaseLifeMs: number;
  maxEntries: number;
  now?: () => number;
  /** A request was admitted from a lease (metrics). */
  onSpent?: () => void;
  /** A lease's unspent units could not be given back (they stay counted until the window ends). */
  onReturnError?: (err: unknown) => void;
}

export const RATE_LEASE_DEFAULTS: RateLeaseOptions = { minUnits: 16, maxUnits: 8_192, hotWithinMs: 1_000, settleMs: 1_000, renewAfter: 0.75, leaseLifeMs: RATE_LEASE_LIFE_MS, maxEntries: 100_000 };

interface Lease {
  id: string;
  /** The access key it admits. */
  accessKey: string;
  account: Admitted['account'];
  limit: number;
  /** The window's remaining units when granted, this lease's own counted as used. */
  remaining: number;
  resetUnix: number;
  units: number;
  untilMs: number;
  /** When this lease is due for renewal (see `renewAfter`), by time and by units left. */
  renewAtMs: number;
  renewBelowUnits: number;
  /** Its renewal was asked for (once: a renewal that got no lease lets this one run out). */
  renewing: boolean;
}

interface Entry {
  lease?: Lease;
  /** The account the key belonged to when last admitted. */
  accountId?: string;
  /** When this key was last admitted by auth-quota. */
  lastAskedMs: number;
  /**
   * Requests since the last lease was asked for (spent from a lease, or admitted by auth-quota while it
   * came): the next lease asks for twice as many, or for a lease's life at their rate if that is more.
   */
  spent: number;
  /** A lease being asked for: requests arriving meanwhile wait for it. */
  pending?: Promise<unknown>;
}

/** Requests a lease may admit: the lease terms both services share (renders that may be cache hits, unsigned). */
const leasable = (r: AdmitRequest) => leaseEligible(r);
const keyOf = (r: AdmitRequest) => `${r.usage}\n${r.features.join(',')}\n${r.accessKey}`;

/**
 * Rate leases: a key this edge admits often (cache hits) is admitted here, without a call, by spending
 * units of the account's rate window that auth-quota leased to this edge. auth-quota counts a lease's
 * units in the window when it grants them and never grants more than a quarter of what is left, so the
 * account's limit stays exact across edges and replicas; units not spent within the lease's life (at
 * most a second, never past the window) are given back. Every request a lease does not cover goes to
 * auth-quota as before, and asks for the next lease when its key is busy.
 *
 * A lease holds only for the key, usage and features that obtained it. `accountChanged` (any change of
 * the account: keys, plan, billing, signatures) drops the account's leases at once, and no new one is
 * kept for `settleMs`, so a rotated key or a changed plan is not admitted from a lease that crossed it.
 */
export function rateLeases(inner: AuthQuotaClient, options: Partial<RateLeaseOptions> = {}) {
  const opts = { ...RATE_LEASE_DEFAULTS, ...options };
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  /** When each recently changed account changed. */
  const changedAt = new Map<string, number>();
  let generation = 0;
  /** Leases held, by access key. */
  const leasedKeys = new Map<string, number>();
  const hold = (entry: Entry, lease: Lease) => {
    entry.lease = lease;
    leasedKeys.set(lease.accessKey, (leasedKeys.get(lease.accessKey) ?? 0) + 1);
  };

  const giveBack = (lease: Lease): Promise<void> => {
    const unused = lease.units;
    lease.units = 0;
    if (unused <= 0) return Promise.resolve();
    return inner.returnLease(lease.account.accountId, lease.id, unused).catch((err: unknown) => opts.onReturnError?.(err));
  };

  const retire = (entry: Entry): Promise<void> => {
    const lease = entry.lease;
    if (!lease) return Promise.resolve();
    entry.lease = undefined;
    const held = (leasedKeys.get(lease.accessKey) ?? 1) - 1;
    if (held > 0) leasedKeys.set(lease.accessKey, held);
    else leasedKeys.delete(lease.accessKey);
    return giveBack(lease);
  };

  const spend = (entry: Entry | undefined, t: number): Admitted | undefined => {
    const lease = entry?.lease;
    if (!entry || !lease || lease.units <= 0 || t >= lease.untilMs) return undefined;
    lease.units -= 1;
    entry.spent += 1;
    opts.onSpent?.();
    return { account: lease.account, rateLimit: { limit: lease.limit, remaining: lease.remaining + lease.units, resetUnix: lease.resetUnix } };
  };

  const settling = (accountId: string | undefined, t: number) => {
    const changed = accountId === undefined ? undefined : changedAt.get(accountId);
    return changed !== undefined && t - changed < opts.settleMs;
  };

  /** The key's lease is due for renewal and nobody is asking for a lease of it yet. */
  const renewalDue = (entry: Entry | undefined, t: number): entry is Entry & { lease: Lease } => {
    if (!entry?.lease || entry.pending) return false;
    const { lease } = entry;
    return !lease.renewing && (t >= lease.renewAtMs || lease.units <= lease.renewBelowUnits);
  };

  /** A request this edge admits at once from a lease, or undefined (then `admit`: auth-quota, or the lease's renewal). */
  const tryNow = (request: AdmitRequest): Admitted | undefined => {
    if (!leasable(request)) return undefined;
    const entry = entries.get(keyOf(request));
    const t = now();
    if (renewalDue(entry, t)) return undefined;
    return spend(entry, t);
  };

  const unitsToAsk = (entry: Entry, t: number) => {
    const atRate = Math.ceil((entry.spent * opts.leaseLifeMs) / Math.max(1, t - entry.lastAskedMs));
    return Math.min(opts.maxUnits, Math.max(opts.minUnits, entry.spent * 2, atRate));
  };

  const entryFor = (key: string): Entry => {
    let entry = entries.get(key);
    if (!entry) {
      if (entries.size >= opts.maxEntries) void dropAll();
      entry = { lastAskedMs: Number.NEGATIVE_INFINITY, spent: 0 };
      entries.set(key, entry);
    }
    return entry;
  };

  /**
   * Admits through auth-quota, asking for a lease; keeps the lease unless the account changed meanwhile.
   * Requests arriving meanwhile spend the current lease if there is one (a renewal), or wait for this one.
   */
  async function askWithLease(request: AdmitRequest, key: string, entry: Entry, units: number): Promise<Admitted> {
    const asked = askedLease(request, key, entry, units);
    entry.pending = asked;
    try {
      return await asked;
    } finally {
      entry.pending = undefined;
    }
  }

  async function askedLease(request: AdmitRequest, key: string, entry: Entry, units: number): Promise<Admitted> {
    const startedMs = now();
    entry.lastAskedMs = startedMs;
    entry.spent = 0;
    const askedIn = generation;
    const admitted = await inner.admit({ ...request, leaseUnits: units });
    const accountId = admitted.account.accountId;
    entry.accountId = accountId;
    const granted = admitted.lease;
    if (!granted) return admitted;
    const lease: Lease = {
      id: granted.id,
      accessKey: request.accessKey,
      account: admitted.account,
      limit: admitted.rateLimit.limit,
      remaining: admitted.rateLimit.remaining,
      resetUnix: admitted.rateLimit.resetUnix,
      units: granted.units,
      untilMs: startedMs + granted.validMs,
      renewAtMs: startedMs + granted.validMs * opts.renewAfter,
      renewBelowUnits: Math.floor(granted.units * (1 - opts.renewAfter)),
      renewing: false,
    };
    const crossedChange = askedIn !== generation || settling(accountId, startedMs);
    if (crossedChange || entries.get(key) !== entry) {
      void giveBack(lease);
      return admitted;
    }
    // The lease it renews (if any) ends here: its unspent units go back.
    void retire(entry);
    hold(entry, lease);
    return { ...admitted, rateLimit: { ...admitted.rateLimit, remaining: lease.remaining + lease.units } };
  }

  async function admit(request: AdmitRequest): Promise<Admitted> {
    if (!leasable(request)) return inner.admit(request);
    const key = keyOf(request);
    const t = now();
    const existing = entries.get(key);
    if (renewalDue(existing, t)) {
      // Renewed ahead of its end: this request asks for the next lease, the others go on spending this one.
      existing.lease.renewing = true;
      return askWithLease(request, key, existing, unitsToAsk(existing, t)).catch((err: unknown) => {
        // The rest of the window is in leases, or auth-quota is out of reach: the lease admits this request still.
        const standing = hasCode(err, 'rate_limited') || hasCode(err, 'service_unavailable');
        const local = standing ? spend(entries.get(key), now()) : undefined;
        if (local) return local;
        // Any other refusal (a key no longer valid, a plan changed): the lease is not spent any more.
        if (!standing && entries.get(key) === existing) void retire(existing);
        throw err;
      });
    }
    const local = spend(existing, t);
    if (local) return local;
    if (existing?.pending) {
      // A lease is on its way: it likely covers this request too.
      await existing.pending.catch(() => undefined);
      const current = entries.get(key);
      const local = spend(current, now());
      if (local) return local;
      // More requests than it covered: counted, so that the next lease covers them.
      if (current) current.spent += 1;
      return inner.admit(request);
    }
    const entry = entryFor(key);
    const busy = (entry.spent > 0 || t - entry.lastAskedMs < opts.hotWithinMs) && !settling(entry.accountId, t);
    void retire(entry);
    if (!busy) {
      entry.lastAskedMs = t;
      entry.spent = 0;
      const admitted = await inner.admit(request);
      entry.accountId = admitted.account.accountId;
      return admitted;
    }
    return askWithLease(request, key, entry, unitsToAsk(entry, t));
  }

  /** Gives back what expired leases did not spend and forgets quiet keys (run every second). */
  const sweep = () => {
    const t = now();
    for (const [key, entry] of entries) {
      if (entry.lease && t >= entry.lease.untilMs) void retire(entry);
      if (!entry.lease && !entry.pending && t - entry.lastAskedMs >= opts.hotWithinMs) entries.delete(key);
    }
    for (const [accountId, at] of changedAt) if (t - at >= opts.settleMs) changedAt.delete(accountId);
  };

  function dropAll(): Promise<void> {
    const returns = [...entries.values()].map(retire);
    entries.clear();
    return Promise.all(returns).then(() => undefined);
  }

  const timer = setInterval(sweep, 1_000);
  timer.unref();

  const admitter: Admitter = {
    admit,
    leasesKey: (accessKey) => leasedKeys.has(accessKey),
    tryNow,
    reserve: (accountId, settledBy) => inner.reserve(accountId, settledBy),
    endReservation: (e) => inner.endReservation(e),
    usage: (accountId) => inner.usage(accountId),
  };
  return {
    admitter,
    /** Any change of the account: its leases are dropped (their unspent units given back). */
    accountChanged(accountId: string) {
      generation += 1;
      changedAt.set(accountId, now());
      for (const [key, entry] of entries) {
        if (entry.lease?.account.accountId === accountId) {
          void retire(entry);
          entries.delete(key);
        }
      }
    },
    sweep,
    /** Units held in leases now (metrics, tests). */
    heldUnits: () => [...entries.values()].reduce((n, e) => n + (e.lease?.units ?? 0), 0),
    /** Stops the sweep and gives every unspent unit back. */
    close(): Promise<void> {
      clearInterval(timer);
      return dropAll();
    },
  };
}

export type RateLeases = ReturnType<typeof rateLeases>;
