import { type KV } from '@app/messaging';
import { RENDER_STATUS_KEYS, decodeWebhookState, renderStatusKey, webhookStateKey } from '@app/render-contracts';
import type { RenderStatusStore } from '../ports.js';
import type { RenderRecord } from '../render-record.js';

const MAX_CAS_ATTEMPTS = 10;

const decode = <T>(bytes: Uint8Array): T | undefined => {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    return undefined;
  }
};
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** Render status in the render-status KV bucket, updated by compare-and-set on the entry's revision. */
export function kvRenderStatus(kv: KV): RenderStatusStore {
  const read = async (key: string) => {
    const entry = await kv.get(key);
    if (!entry || entry.operation !== 'PUT') return undefined;
    const value = decode<RenderRecord>(entry.value);
    return value ? { value, revision: entry.revision } : undefined;
  };
  return {
    async create(record) {
      await kv.create(renderStatusKey(record.id), encode(record));
    },
    async get(id) {
      return (await read(renderStatusKey(id)))?.value;
    },
    async update(id, change) {
      const key = renderStatusKey(id);
      for (let attempt = 1; ; attempt++) {
        const current = await read(key);
        if (!current) return;
        const next = change(current.value);
        if (!next) return;
        try {
          await kv.update(key, encode(next), current.revision);
          return;
        } catch (err) {
          // Another replica wrote first: decide again on what it wrote.
          if (attempt >= MAX_CAS_ATTEMPTS) throw err;
        }
      }
    },
    async remove(id) {
      await kv.delete(renderStatusKey(id));
    },
    async *list() {
      const keys: string[] = [];
      for await (const key of await kv.keys(RENDER_STATUS_KEYS)) keys.push(key);
      for (const key of keys) {
        const found = await read(key);
        if (found) yield found.value;
      }
    },
    async webhookState(id) {
      const entry = await kv.get(webhookStateKey(id));
      return entry && entry.operation === 'PUT' ? decodeWebhookState(entry.value) : undefined;
    },
  };
}
