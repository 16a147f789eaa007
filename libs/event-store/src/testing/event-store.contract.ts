import { describe } from 'vitest';
import { concurrencyContract } from './concurrency.contract-cases.js';
import { contractHarness, type ContractOptions, type MakeStore } from './contract-harness.js';
import { storageContract } from './storage.contract-cases.js';
import { useCasesContract } from './use-cases.contract-cases.js';

export type { MakeStore } from './contract-harness.js';

/**
 * The behaviour every EventStore adapter must show, run against each of them (emmett-style shared suite).
 * Each test opens its own database and uses fresh stream ids, so tests share nothing.
 */
export function eventStoreContract(name: string, makeStore: MakeStore, opts: ContractOptions = {}): void {
  describe(name, () => {
    const harness = contractHarness(makeStore, opts);
    storageContract(harness);
    concurrencyContract(harness);
    useCasesContract(harness);
  });
}
