import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { startNatsServer, type RunningNats } from '@app/stack';
import { ack, connectNats, jetstream, jetstreamManager, nanos, pullWorkers, type JetStreamClient, type NatsConnection, type PullWorkers } from './index.js';

// What pullWorkers asks the server for, read where it lands: the pull requests nats-server 2.9 receives
// (a plain subscription on the consumer's API subject gets a copy of each) and the consumer's own counts.
let dir: string;
let nats: RunningNats;
let nc: NatsConnection;
let js: JetStreamClient;
let workers: PullWorkers | undefined;
const quiet = { warn: () => undefined, error: () => undefined };
const until = async (condition: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pull-slots-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'pull-slots' });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'SLOTS', subjects: ['slots.>'] });
  for (const durable of ['idle', 'busy']) {
    await jsm.consumers.add('SLOTS', { durable_name: durable, filter_subject: `slots.${durable}`, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(30_000) });
  }
  js = jetstream(nc);
});

afterEach(async () => {
  await workers?.stop();
  workers = undefined;
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const start = (durable: string, concurrency: number, handle: (msg: JsMsg) => Promise<void>) => {
  workers = pullWorkers({
    js,
    stream: 'SLOTS',
    durable,
    concurrency,
    logger: quiet,
    span: (msg) => ({ name: msg.subject }),
    handle: async (msg) => {
      await handle(msg);
      return ack;
    },
  });
  workers.start();
};

describe('pullWorkers without prefetch', () => {
  it('should send one pull request for all its free slots while idle, not one per slot', async () => {
    const requests: Array<{ batch: number }> = [];
    const spy = nc.subscribe('$JS.API.CONSUMER.MSG.NEXT.SLOTS.idle', {
      callback: (_err, msg) => requests.push(JSON.parse(new TextDecoder().decode(msg.data)) as { batch: number }),
    });
    await nc.flush();
    start('idle', 16, async () => undefined);
    await new Promise((r) => setTimeout(r, 3_500));
    spy.unsubscribe();
    // A pull request a second lasts a second: about 4 in 3.5 s (16 slots pulling one each would be 56).
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(6);
    expect(requests.every((r) => r.batch === 16)).toBe(true);
  });

  it('should hold no more messages than it works on, and take the rest as its slots free', async () => {
    const releases: Array<() => void> = [];
    let running = 0;
    let mostAtOnce = 0;
    const handled: string[] = [];
    start('busy', 2, async (msg) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise<void>((r) => releases.push(r));
      running -= 1;
      handled.push(new TextDecoder().decode(msg.data));
    });
    for (let i = 0; i < 5; i++) await js.publish('slots.busy', new TextEncoder().encode(String(i)));
    await until(() => releases.length === 2, 'two messages in hand');
    // Both slots busy: the other three stay in the stream for another replica, none delivered here.
    await new Promise((r) => setTimeout(r, 300));
    const info = await (await jetstreamManager(nc)).consumers.info('SLOTS', 'busy');
    expect(info.num_ack_pending).toBe(2);
    expect(info.num_pending).toBe(3);
    // Each slot freed takes the next message.
    for (let taken = 2; taken < 5; taken++) {
      releases.shift()!();
      await until(() => releases.length === 2, 'the next message in the freed slot');
    }
    while (releases.length) releases.shift()!();
    await until(() => handled.length === 5, 'every message handled');
    expect(handled.sort()).toEqual(['0', '1', '2', '3', '4']);
    expect(mostAtOnce).toBe(2);
  });
});
