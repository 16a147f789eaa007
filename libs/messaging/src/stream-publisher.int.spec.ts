import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { STREAMS, SUBJECTS, headers, jetstreamManager, streamPublisher, type NatsConnection, type StreamPublisher } from './index.js';

// Publishes to the RENDER_JOBS stream of a real nats-server 2.9, read back from the stream itself.
let bus: TestBus;
let publisher: StreamPublisher;

beforeAll(async () => {
  bus = await startTestBus('stream-publisher');
  publisher = streamPublisher(bus.nc);
});

afterAll(async () => {
  publisher?.close();
  await bus?.stop();
});

const stored = async (seq: number) => (await jetstreamManager(bus.nc)).streams.getMessage(STREAMS.RENDER_JOBS.name, { seq });
const bytes = (s: string) => new TextEncoder().encode(s);

describe('A stream publisher', () => {
  describe('When it publishes a message with an id and headers', () => {
    it('should resolve with the sequence the stream stored it at, data and headers as sent', async () => {
      const h = headers();
      h.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      const ack = await publisher.publish(SUBJECTS.renderJobRequested, bytes('job one'), { msgID: 'job-one', headers: h });
      expect(ack).toMatchObject({ stream: STREAMS.RENDER_JOBS.name, duplicate: false });
      const msg = await stored(ack.seq);
      expect(msg?.string()).toBe('job one');
      expect(msg?.header.get('Nats-Msg-Id')).toBe('job-one');
      expect(msg?.header.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    });
  });

  describe('When the same id is published twice', () => {
    it('should store it once and say the second was a duplicate', async () => {
      const first = await publisher.publish(SUBJECTS.renderJobRequested, bytes('twice'), { msgID: 'job-twice' });
      const second = await publisher.publish(SUBJECTS.renderJobRequested, bytes('twice'), { msgID: 'job-twice' });
      expect(first.duplicate).toBe(false);
      expect(second).toMatchObject({ duplicate: true, seq: first.seq });
    });
  });

  describe('When a thousand are published at once, from two publishers on one connection', () => {
    it('should resolve each with its own message, none lost or crossed', async () => {
      const other = streamPublisher(bus.nc);
      try {
        const acks = await Promise.all(
          Array.from({ length: 1_000 }, (_, i) => (i % 2 ? other : publisher).publish(SUBJECTS.renderJobRequested, bytes(`burst ${i}`), { msgID: `burst-${i}` })),
        );
        expect(new Set(acks.map((a) => a.seq)).size).toBe(1_000);
        for (const i of [0, 1, 499, 998, 999]) expect((await stored(acks[i]!.seq))?.string()).toBe(`burst ${i}`);
        expect(publisher.pending() + other.pending()).toBe(0);
      } finally {
        other.close();
      }
    });
  });

  describe('When the stream refuses the message', () => {
    it('should reject with the stream’s reason', async () => {
      const h = headers();
      h.set('Nats-Expected-Stream', 'SOME_OTHER_STREAM');
      await expect(publisher.publish(SUBJECTS.renderJobRequested, bytes('refused'), { msgID: 'job-refused', headers: h })).rejects.toThrow(
        /publish refused: 400 expected stream does not match/,
      );
    });
  });

  describe('When no stream stores the subject', () => {
    it('should reject at once, naming the subject', async () => {
      await expect(publisher.publish('nowhere.stored', bytes('lost'))).rejects.toThrow('no stream stores nowhere.stored');
    });
  });

  describe('When nothing acknowledges the message (a plain subscriber, no stream)', () => {
    let listener: NatsConnection;
    beforeAll(async () => {
      listener = await bus.connect('listener');
      listener.subscribe('unstored.heard', { callback: () => undefined });
      await listener.flush();
    });

    it('should reject once its timeout has passed, not before', async () => {
      const impatient = streamPublisher(bus.nc, { timeoutMs: 300 });
      try {
        const started = Date.now();
        await expect(impatient.publish('unstored.heard', bytes('unanswered'))).rejects.toThrow('no acknowledgement within 300 ms');
        expect(Date.now() - started).toBeGreaterThanOrEqual(300);
        expect(impatient.pending()).toBe(0);
      } finally {
        impatient.close();
      }
    });

    it('should reject what it still awaits when closed, and publish nothing after', async () => {
      const closing = streamPublisher(bus.nc);
      const awaiting = closing.publish('unstored.heard', bytes('unanswered'));
      closing.close();
      await expect(awaiting).rejects.toThrow('the publisher is closed');
      await expect(closing.publish(SUBJECTS.renderJobRequested, bytes('late'))).rejects.toThrow('the publisher is closed');
    });
  });
});
