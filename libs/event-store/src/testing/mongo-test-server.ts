import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';

export const MONGO_SKIPPED_TITLE = 'MongoDB adapter: SKIPPED — set MONGO_URL or run a container engine';

export interface MongoTestServer {
  url: string;
  stop(): Promise<void>;
}

const PRIMARY_TIMEOUT_MS = 30_000;

/**
 * A MongoDB for the tests: MONGO_URL when set (it must be a replica set), else a `mongo:7` single-node
 * replica set started with testcontainers when a container engine is around. Otherwise the reason to skip.
 */
export async function startMongoTestServer(): Promise<MongoTestServer | { skipped: string }> {
  const url = process.env['MONGO_URL'];
  if (url) return { url, stop: async () => undefined };
  if (!containerEngineLikely()) {
    return { skipped: 'MONGO_URL is not set and no container engine was found (DOCKER_HOST, /var/run/docker.sock)' };
  }
  try {
    return await startReplicaSetContainer();
  } catch (err) {
    return { skipped: `testcontainers could not start mongo:7: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Cheap check before importing testcontainers, which is slow to load and fails without an engine. */
const containerEngineLikely = (): boolean => !!process.env['DOCKER_HOST'] || existsSync('/var/run/docker.sock');

async function startReplicaSetContainer(): Promise<MongoTestServer> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:7')
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
  try {
    await initiateReplicaSet(url);
  } catch (err) {
    await container.stop();
    throw err;
  }
  return { url, stop: async () => void (await container.stop()) };
}

async function initiateReplicaSet(url: string): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    const admin = client.db('admin');
    await admin.command({ replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] } });
    const deadline = Date.now() + PRIMARY_TIMEOUT_MS;
    while (!(await admin.command({ hello: 1 }))['isWritablePrimary']) {
      if (Date.now() > deadline) throw new Error(`no primary was elected within ${PRIMARY_TIMEOUT_MS} ms`);
      await sleep(200);
    }
  } finally {
    await client.close();
  }
}

/** Drops the databases the tests created, so a shared server (MONGO_URL) is left as it was found. */
export async function dropTestDatabases(url: string, prefix: string): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) if (name.startsWith(prefix)) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}
