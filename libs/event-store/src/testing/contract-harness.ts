import { randomUUID } from 'node:crypto';
import { afterEach, expect } from 'vitest';
import type { EventStore, NewEvent } from '../event-store.js';

/** Opens a store on the named database; the same name reaches the same data through a new connection. */
export type MakeStore = (database: string) => Promise<EventStore> | EventStore;

export interface ContractOptions {
  /** Rounds of the 50-writer race (default 100). */
  raceRounds?: number;
}

export interface ContractHarness {
  /** A store on a fresh database (or on `database`, to open a second connection to it). Closed after the test. */
  open(database?: string): Promise<{ store: EventStore; database: string }>;
  raceRounds: number;
}

/** Registers the per-test cleanup; call it inside the suite's `describe`. */
export function contractHarness(makeStore: MakeStore, opts: ContractOptions): ContractHarness {
  const opened: EventStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return {
    async open(database = randomUUID()) {
      const store = await makeStore(database);
      opened.push(store);
      return { store, database };
    },
    raceRounds: opts.raceRounds ?? 100,
  };
}

export const newStreamId = (): string => `test-${randomUUID()}`;

export const happened = (n: number, ids: { id?: string } = {}): NewEvent<'Happened', { n: number }> => ({
  type: 'Happened',
  data: { n },
  ...ids,
});

/** `Happened` events numbered from..to. */
export const happenings = (from: number, to: number): NewEvent<'Happened', { n: number }>[] =>
  range(from, to).map((n) => happened(n));

export async function expectRejectedWith(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

export const versionsOf = (events: { version: number }[]): number[] => events.map((e) => e.version);

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
