import { handleCommand, type EventStore, type StoredEvent } from '@app/event-store';
import { ValidationError } from '@app/errors';
import {
  secretProblems,
  secretsDecider,
  secretsStreamId,
  type AccountSecrets as SecretsState,
  type SecretCommand,
  type SecretEvent,
} from '../../domain/secrets/account-secrets.js';
import type { Clock, SecretBox } from '../ports.js';

export interface SecretInfo {
  name: string;
  createdMs: number;
  updatedMs: number;
}

/**
 * An account's secrets, each sealed (AES-256-GCM) under the service's master key before it is stored
 * as an event of the account's `secrets-<id>` stream: neither the stream nor anything it feeds ever
 * holds a value in the clear. Sealed under the master key, not the account's keys, they outlive any key
 * rotation. Only `reveal` opens them, for the renderer that types them.
 */
export function accountSecrets(deps: { store: EventStore; box: SecretBox; clock: Clock }) {
  const { store, box, clock } = deps;
  const aggregate = {
    decide: (c: SecretCommand, s: SecretsState) => secretsDecider.decide(c, s),
    evolve: (s: SecretsState, e: StoredEvent | SecretEvent) => secretsDecider.evolve(s, { type: e.type, data: e.data } as SecretEvent),
    initialState: secretsDecider.initialState,
  };
  const read = async (accountId: string): Promise<SecretsState> =>
    (await store.readStream(secretsStreamId(accountId))).reduce(aggregate.evolve, secretsDecider.initialState());
  const infoOf = (name: string, s: SecretsState): SecretInfo => ({ name, createdMs: s.secrets[name]!.createdMs, updatedMs: s.secrets[name]!.updatedMs });

  return {
    async put(accountId: string, name: string, value: string): Promise<{ secret: SecretInfo; created: boolean }> {
      const problems = secretProblems(name, value);
      if (problems.length > 0) throw new ValidationError(problems);
      const result = await handleCommand(store, secretsStreamId(accountId), aggregate, {
        type: 'PutSecret',
        data: { name, sealed: box.seal(value), nowMs: clock.now().getTime() },
      } as SecretCommand);
      return { secret: infoOf(name, result.newState), created: !Object.hasOwn(result.state.secrets, name) };
    },
    async list(accountId: string): Promise<SecretInfo[]> {
      const state = await read(accountId);
      return Object.keys(state.secrets)
        .sort()
        .map((name) => infoOf(name, state));
    },
    async remove(accountId: string, name: string): Promise<void> {
      await handleCommand(store, secretsStreamId(accountId), aggregate, { type: 'DeleteSecret', data: { name, nowMs: clock.now().getTime() } } as SecretCommand);
    },
    /** The values of those of `names` the account has. */
    async reveal(accountId: string, names: readonly string[]): Promise<Map<string, string>> {
      const state = await read(accountId);
      const values = new Map<string, string>();
      for (const name of names) {
        const kept = Object.hasOwn(state.secrets, name) ? state.secrets[name] : undefined;
        if (kept) values.set(name, box.open(kept.sealed));
      }
      return values;
    },
  };
}

export type AccountSecrets = ReturnType<typeof accountSecrets>;
