import { randomUUID } from 'node:crypto';
import { afterAll, describe, it } from 'vitest';
import { eventStoreContract } from '../testing/event-store.contract.js';
import { dropTestDatabases, MONGO_SKIPPED_TITLE, startMongoTestServer } from '../testing/mongo-test-server.js';
import { mongoEventStore } from './mongo-event-store.js';

const mongo = await startMongoTestServer();

if ('url' in mongo) {
  const prefix = `es-contract-${randomUUID().slice(0, 8)}-`;
  afterAll(async () => {
    await dropTestDatabases(mongo.url, prefix);
    await mongo.stop();
  });
  // Fewer race rounds than SQLite: each round is 50 transactions that conflict on purpose.
  eventStoreContract('MongoDB adapter', (database) => mongoEventStore({ url: mongo.url, dbName: prefix + database }), {
    raceRounds: 20,
  });
} else {
  console.warn(`\n⚠⚠⚠ ${MONGO_SKIPPED_TITLE}\n    ${mongo.skipped}\n`);
  describe.skip(MONGO_SKIPPED_TITLE, () => {
    it('should pass the event store contract against MongoDB', () => undefined);
  });
}
