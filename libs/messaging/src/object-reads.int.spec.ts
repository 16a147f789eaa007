import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { Objm, jetstreamManager, wholeObjectReader, type ObjectStore, type WholeObjectRead } from './index.js';

// Whole-object reads on a real nats-server 2.9, against what the object store library itself wrote.
let bus: TestBus;
let store: ObjectStore;
let read: WholeObjectRead;
const BUCKET = 'object-reads';
/** Consumers the server announced as created on the bucket's stream (its JetStream advisories). */
const consumersCreated: string[] = [];

beforeAll(async () => {
  bus = await startTestBus('object-reads');
  store = await new Objm(bus.nc).create(BUCKET);
  read = wholeObjectReader(bus.nc, store, BUCKET);
  bus.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.CREATED.OBJ_${BUCKET}.>`, { callback: (_err, msg) => consumersCreated.push(msg.subject) });
});

afterAll(() => bus?.stop());

const readBack = async (name: string) => {
  const info = await store.info(name);
  expect(info).not.toBeNull();
  return read(info!);
};

describe('Reading a whole object', () => {
  describe('When the object fits in one chunk', () => {
    it('should return its bytes without creating a consumer', async () => {
      const body = randomBytes(70_000);
      await store.putBlob({ name: 'one-chunk' }, body);
      await bus.nc.flush();
      consumersCreated.length = 0;
      expect(Buffer.from((await readBack('one-chunk'))!).equals(body)).toBe(true);
      await bus.nc.flush();
      expect(consumersCreated).toEqual([]);
    });
  });

  describe('When the object spans several chunks', () => {
    it("should return all of its bytes (through the library's read)", async () => {
      const body = randomBytes(300_000);
      await store.putBlob({ name: 'three-chunks' }, body);
      const info = await store.info('three-chunks');
      expect(info!.chunks).toBeGreaterThan(1);
      expect(Buffer.from((await read(info!))!).equals(body)).toBe(true);
    });
  });

  describe('When the object is empty', () => {
    it('should return no bytes', async () => {
      await store.putBlob({ name: 'empty' }, new Uint8Array());
      expect(await readBack('empty')).toEqual(new Uint8Array());
    });
  });

  describe('When the object was removed after its info was read', () => {
    it('should say it is gone', async () => {
      await store.putBlob({ name: 'removed' }, randomBytes(1_000));
      const info = await store.info('removed');
      await store.delete('removed');
      expect(await read(info!)).toBeNull();
    });
  });

  describe('When the object was replaced after its info was read', () => {
    it('should return the bytes now stored under its name', async () => {
      await store.putBlob({ name: 'replaced' }, randomBytes(1_000));
      const info = await store.info('replaced');
      const newer = randomBytes(2_000);
      await store.putBlob({ name: 'replaced' }, newer);
      expect(Buffer.from((await read(info!))!).equals(newer)).toBe(true);
    });
  });

  describe("When the stored chunk's bytes do not match the object's digest", () => {
    it('should refuse them', async () => {
      await store.putBlob({ name: 'corrupt' }, randomBytes(1_000));
      const info = await store.info('corrupt');
      // The chunk as the server holds it, replaced by other bytes under the same subject.
      const jsm = await jetstreamManager(bus.nc);
      await bus.nc.request(`$O.${BUCKET}.C.${info!.nuid}`, randomBytes(1_000));
      expect(await jsm.streams.getMessage(`OBJ_${BUCKET}`, { last_by_subj: `$O.${BUCKET}.C.${info!.nuid}` })).not.toBeNull();
      await expect(read(info!)).rejects.toThrow(/corrupt/);
    });
  });
});
