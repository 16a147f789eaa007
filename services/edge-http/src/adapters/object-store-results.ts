import type { ObjectStore } from '@app/messaging';
import { AppError } from '@app/errors';
import type { ResultStore } from '../application/ports.js';

/** Render results in the JetStream object store. */
export function objectStoreResults(store: ObjectStore): ResultStore {
  return {
    async read(name) {
      const data = await store.getBlob(name);
      if (!data) throw new AppError('render_failed', 'The render result is no longer available.');
      return data;
    },
    async remove(name) {
      await store.delete(name);
    },
  };
}
