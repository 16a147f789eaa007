import { SUBJECTS, type NatsConnection } from '@app/messaging';
import type { KeyChangeNotifier } from '../application/ports.js';

/** Publishes key changes on core NATS and flushes, so the server has the message before the RPC returns. */
export function natsKeyChangeNotifier(nc: NatsConnection): KeyChangeNotifier {
  return {
    async keysChanged(accountId) {
      nc.publish(SUBJECTS.accountKeysChanged, accountId);
      await nc.flush();
    },
  };
}
