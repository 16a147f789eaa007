import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { AppError } from '@app/errors';
import { startNatsServer, type RunningNats } from '@app/stack';
import { connectNats, jetstream, jetstreamManager, nanos, pullWorkers, type NatsConnection, type PullWorkers } from './index.js';

// A consumer whose handler throws settles the message as the error table says, on a real nats-server 2.9.
let dir: string;
let nats: RunningNats;
let nc: NatsConnection;
let workers: PullWorkers;
const deliveries = new Map<string, number>();
const quiet = { warn: () => undefined, error: () => undefined };

const FAILURES: Record<string, () => Error> = {
  'work.invalid': () => new AppError('invalid_parameter', 'never valid'), // term
  'work.missing': () => new AppError('render_not_found', 'gone'), // ack
  'work.outage': () => new AppError('service_unavailable', 'down'), // nak
  'work.fault': () => new TypeError('a bug'), // not in the table: nak
};
const MAX_DELIVER = 3;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pull-workers-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'pull-workers' });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'WORK', subjects: ['work.>'] });
  await jsm.consumers.add('WORK', {
    durable_name: 'workers',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_deliver: MAX_DELIVER,
    ack_wait: nanos(30_000),
  });
  const js = jetstream(nc);
  workers = pullWorkers({
    js,
    stream: 'WORK',
    durable: 'workers',
    concurrency: 2,
    logger: quiet,
    errorDelayMs: 20,
    span: (msg) => ({ name: msg.subject }),
    handle: async (msg) => {
      deliveries.set(msg.subject, (deliveries.get(msg.subject) ?? 0) + 1);
      throw FAILURES[msg.subject]!();
    },
  });
  workers.start();
  for (const subject of Object.keys(FAILURES)) await js.publish(subject, new Uint8Array());
});

afterAll(async () => {
  await workers?.stop();
  await nc?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('pullWorkers, when the handler throws', () => {
  it('should deliver a passing failure or a fault again up to max_deliver, and an error that can never succeed once', async () => {
    const settled = () => deliveries.get('work.outage') === MAX_DELIVER && deliveries.get('work.fault') === MAX_DELIVER;
    for (let i = 0; i < 200 && !settled(); i++) await new Promise((r) => setTimeout(r, 50));
    // Redeliveries come 20 ms apart: a second of quiet shows the others are not coming back.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(Object.fromEntries(deliveries)).toEqual({ 'work.invalid': 1, 'work.missing': 1, 'work.outage': MAX_DELIVER, 'work.fault': MAX_DELIVER });
  });
});
