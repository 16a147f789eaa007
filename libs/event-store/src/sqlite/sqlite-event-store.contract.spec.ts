import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { eventStoreContract } from '../testing/event-store.contract.js';
import { sqliteEventStore } from './sqlite-event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'event-store-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('SQLite adapter', (database) => sqliteEventStore({ path: join(dir, `${database}.db`) }));
