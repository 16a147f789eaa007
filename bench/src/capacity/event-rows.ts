import Database from 'libsql';

/** Rows of an event store's SQLite file (events by type, snapshots), read without writing. */
export function eventRows(path: string): { events: Record<string, number>; snapshots: number } {
  const db = new Database(path, { readonly: true });
  try {
    const events = Object.fromEntries(
      (db.prepare('SELECT type, COUNT(*) AS n FROM events GROUP BY type').all() as { type: string; n: number }[]).map((r) => [r.type, r.n]),
    );
    const snapshots = (db.prepare('SELECT COUNT(*) AS n FROM snapshots').get() as { n: number }).n;
    return { events, snapshots };
  } finally {
    db.close();
  }
}

export function rowsDelta(before: ReturnType<typeof eventRows>, after: ReturnType<typeof eventRows>, operations: number) {
  const per = (n: number) => Number((n / operations).toFixed(2));
  return {
    events: Object.fromEntries(Object.keys(after.events).map((t) => [t, per(after.events[t]! - (before.events[t] ?? 0))]).filter(([, n]) => n !== 0)),
    snapshots: per(after.snapshots - before.snapshots),
  };
}
