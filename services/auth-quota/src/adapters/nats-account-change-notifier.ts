import { SUBJECTS, type NatsConnection } from '@app/messaging';
import type { AccountChangeNotifier, AccountDirectory } from '../application/ports.js';

/** How long the replica that made a change waits for one more replica to say it has read it. */
const STALL_MS = 150;
const MAX_WAIT_MS = 1_000;

/**
 * Account changes over core NATS. The replica that made a change asks every replica to read it
 * (a request answered by each once its directory has the change) and returns when the answers stop
 * coming; edges are told of key changes so they forget the keys they refused.
 */
export function natsAccountChangeNotifier(nc: NatsConnection): AccountChangeNotifier {
  return {
    async accountChanged(accountId) {
      try {
        const answers = await nc.requestMany(SUBJECTS.accountDirectoryChanged, accountId, {
          strategy: 'stall',
          stall: STALL_MS,
          maxWait: MAX_WAIT_MS,
        });
        for await (const _ of answers) {
          // each answer is one replica that has read the change
        }
      } catch {
        // No other replica answered in time: each reads the change within a second, or before it says it knows no such account.
      }
    },
    async keysChanged(accountId) {
      nc.publish(SUBJECTS.accountKeysChanged, accountId);
      await nc.flush();
    },
  };
}

/** Answers other replicas' change announcements once this replica's directory has read the change. */
export function followAccountChanges(nc: NatsConnection, directory: AccountDirectory, onError: (err: unknown) => void): { unsubscribe(): void } {
  return nc.subscribe(SUBJECTS.accountDirectoryChanged, {
    callback: (_err, msg) => {
      directory.refresh().then(
        () => msg.respond(),
        (err: unknown) => onError(err),
      );
    },
  });
}
