import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { jetstream, jetstreamManager, publishUntilStored } from './index.js';

// On a real nats-server 2.9: a stream that cannot take a message for a while (as one electing its leader
// answers: nobody) gets it once it can, stored once.
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('publish-until-stored');
});

afterAll(() => bus?.stop());

describe('Publishing until the stream stores the message', () => {
  describe('When the stream is not there to answer for a second', () => {
    it('should store the message once it is, exactly once', async () => {
      const js = jetstream(bus.nc, { timeout: 500 });
      const jsm = await jetstreamManager(bus.nc);
      const publishing = publishUntilStored(js, 'late.event', new TextEncoder().encode('kept'), { msgID: 'event-1' }, 10_000);
      await new Promise((r) => setTimeout(r, 1_000));
      await jsm.streams.add({ name: 'LATE', subjects: ['late.>'], duplicate_window: 60_000_000_000 });
      const ack = await publishing;
      expect(ack).toMatchObject({ stream: 'LATE', duplicate: false });
      expect(await publishUntilStored(js, 'late.event', new TextEncoder().encode('kept'), { msgID: 'event-1' })).toMatchObject({ duplicate: true });
      const info = await jsm.streams.info('LATE');
      expect(info.state.messages).toBe(1);
      expect(new TextDecoder().decode((await jsm.streams.getMessage('LATE', { seq: 1 }))!.data)).toBe('kept');
    });
  });

  describe('When the publish fails for another reason than an outage', () => {
    it('should fail with the answer of the stream', async () => {
      const js = jetstream(bus.nc, { timeout: 500 });
      await expect(
        publishUntilStored(js, 'late.event', new Uint8Array(), { msgID: 'event-2', expect: { streamName: 'ANOTHER' } }, 10_000),
      ).rejects.toMatchObject({ name: 'JetStreamApiError', message: expect.stringMatching(/expected stream does not match/) });
    });
  });
});
