/**
 * Monthly render quota with reserve / commit / release: a reservation holds one unit until the render
 * ends, so concurrent requests can never overshoot the quota. Months are calendar months in UTC.
 */
export interface Reservation {
  id: string;
  accountId: string;
  month: string;
  expiresAtMs: number;
}

export interface QuotaUsage {
  quota: number;
  used: number;
  reserved: number;
  remaining: number;
  /** Unix seconds when the month ends. */
  resetUnix: number;
}

export const monthOf = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 7);

export function monthEndUnix(nowMs: number): number {
  const d = new Date(nowMs);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000);
}

export function quotaLedger(opts: { reservationTtlMs: number }) {
  const counters = new Map<string, { used: number; reserved: number }>();
  const reservations = new Map<string, Reservation>();

  const counter = (accountId: string, month: string) => {
    const key = `${accountId}:${month}`;
    let c = counters.get(key);
    if (!c) {
      c = { used: 0, reserved: 0 };
      counters.set(key, c);
    }
    return c;
  };

  const sweep = (nowMs: number) => {
    for (const r of reservations.values()) {
      if (r.expiresAtMs <= nowMs) {
        reservations.delete(r.id);
        counter(r.accountId, r.month).reserved -= 1;
      }
    }
  };

  const usage = (accountId: string, quota: number, nowMs: number): QuotaUsage => {
    const c = counter(accountId, monthOf(nowMs));
    return {
      quota,
      used: c.used,
      reserved: c.reserved,
      remaining: Math.max(0, quota - c.used - c.reserved),
      resetUnix: monthEndUnix(nowMs),
    };
  };

  return {
    usage,
    /** Restores the committed usage of a month (at start, from the usage journal). */
    restore(accountId: string, month: string, used: number): void {
      counter(accountId, month).used = used;
    },
    /** Reserves one unit, or returns undefined when the quota is used up. */
    reserve(id: string, accountId: string, quota: number, nowMs: number): Reservation | undefined {
      sweep(nowMs);
      const month = monthOf(nowMs);
      const c = counter(accountId, month);
      if (c.used + c.reserved >= quota) return undefined;
      c.reserved += 1;
      const r = { id, accountId, month, expiresAtMs: nowMs + opts.reservationTtlMs };
      reservations.set(id, r);
      return r;
    },
    /** Idempotent: a second commit of the same reservation does nothing. Returns what was committed and the month's usage after it. */
    commit(id: string): (Reservation & { usedAfter: number }) | undefined {
      const r = reservations.get(id);
      if (!r) return undefined;
      reservations.delete(id);
      const c = counter(r.accountId, r.month);
      c.reserved -= 1;
      c.used += 1;
      return { ...r, usedAfter: c.used };
    },
    release(id: string): boolean {
      const r = reservations.get(id);
      if (!r) return false;
      reservations.delete(id);
      counter(r.accountId, r.month).reserved -= 1;
      return true;
    },
  };
}

export type QuotaLedger = ReturnType<typeof quotaLedger>;
