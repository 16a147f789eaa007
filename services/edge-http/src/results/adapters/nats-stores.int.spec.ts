import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Kvm, Objm, wholeObjectReader, type NatsConnection } from '@app/messaging';
import { encodeResultMeta, encodeWebhookState, webhookStateKey } from '@app/render-contracts';
import { startTestBus, type TestBus } from '@app/testkit';
import type { RenderRecord } from '../render-record.js';
import { kvCacheIndex } from './kv-cache-index.js';
import { kvRenderStatus } from './kv-render-status.js';
import { objectStoreFiles } from './object-store-files.js';

// The edge's stores against a real nats-server 2.9 (KV compare-and-set, key filters, object metadata).
let bus: TestBus;
let nc: NatsConnection;

beforeAll(async () => {
  bus = await startTestBus('edge-stores');
  nc = bus.nc;
});

afterAll(() => bus?.stop());

const record = (id: string): RenderRecord => ({ id, accountId: 'acc', operation: 'pdf', format: 'pdf', status: 'queued', createdMs: 1, deadlineMs: 2 });

describe('kvRenderStatus', () => {
  describe('When two writers update the same render at once', () => {
    it('should apply both decisions on what the other wrote (compare-and-set)', async () => {
      const kv = await new Kvm(nc).open(BUCKETS.renderStatus.name);
      const store = kvRenderStatus(kv);
      await store.create(record('r1'));
      await Promise.all([
        store.update('r1', (r) => ({ ...r, size: (r.size ?? 0) + 1 })),
        store.update('r1', (r) => ({ ...r, size: (r.size ?? 0) + 1 })),
        store.update('r1', (r) => ({ ...r, size: (r.size ?? 0) + 1 })),
      ]);
      expect((await store.get('r1'))?.size).toBe(3);
    });
  });

  describe('When renders and webhook states are listed', () => {
    it('should list renders only, and read the webhook state by render id', async () => {
      const kv = await new Kvm(nc).open(BUCKETS.renderStatus.name);
      const store = kvRenderStatus(kv);
      await store.create(record('r2'));
      await store.create(record('task:7/run.1'));
      await kv.put(webhookStateKey('r2'), encodeWebhookState({ state: 'delivered', attempts: 2 }));
      const ids: string[] = [];
      for await (const r of store.list()) ids.push(r.id);
      expect(ids.sort()).toEqual(['r1', 'r2', 'task:7/run.1']);
      expect(await store.webhookState('r2')).toEqual({ state: 'delivered', attempts: 2 });
      await store.remove('r2');
      expect(await store.get('r2')).toBeUndefined();
    });
  });
});

describe('kvCacheIndex and objectStoreFiles', () => {
  it('should keep entries and object metadata, and list them', async () => {
    const index = kvCacheIndex(await new Kvm(nc).open(BUCKETS.renderCache.name));
    await index.put('a'.repeat(64), { accountId: 'acc', objectName: 'obj1', expiresUnixMs: 123 });
    expect(await index.get('a'.repeat(64))).toEqual({ accountId: 'acc', objectName: 'obj1', expiresUnixMs: 123 });
    const keys: string[] = [];
    for await (const { key } of index.list()) keys.push(key);
    expect(keys).toEqual(['a'.repeat(64)]);

    const store = await new Objm(nc).open(BUCKETS.renderResults.name);
    const files = objectStoreFiles(store, wholeObjectReader(nc, store, BUCKETS.renderResults.name));
    const metadata = encodeResultMeta({
      accountId: 'acc',
      expiresUnixMs: 456,
      contentType: 'application/pdf',
      extension: 'pdf',
      kind: 'file',
      headers: { 'x-service-metadata-title': 'A%20title' },
    });
    await store.putBlob({ name: 'obj1', metadata }, new Uint8Array([1, 2, 3]));
    await store.putBlob({ name: 'legacy' }, new Uint8Array([4]));
    expect(await files.info('obj1')).toMatchObject({ objectName: 'obj1', accountId: 'acc', expiresUnixMs: 456, kind: 'file', size: 3, headers: { 'x-service-metadata-title': 'A%20title' } });
    expect(await files.info('legacy')).toBeUndefined();
    expect(Buffer.from((await files.read('obj1'))!)).toEqual(Buffer.from([1, 2, 3]));
    const listed = await files.list();
    expect(listed.map((f) => [f.objectName, f.file?.kind]).sort()).toEqual([['legacy', undefined], ['obj1', 'file']]);
    await files.remove('obj1');
    expect(await files.info('obj1')).toBeUndefined();
  });
});
