import { randomUUID } from 'node:crypto';
import { AppError } from '@app/errors';
import type { BillingStatus, OpenAccountState, StoredKeys } from '../domain/account/account.js';
import type { Plan } from '../domain/account/plans.js';
import { generateAccessKey, generateSecretKey, hashKey } from '../domain/account/keys.js';
import type { AccountChangeNotifier, AccountCommands, AccountDirectory, Clock, SecretBox } from './ports.js';

export interface IssuedKeys {
  accessKey: string;
  secretKey: string;
}

/** Administration use cases: open accounts, rotate keys, change plan, signature and billing switches. */
export function accountAdmin(deps: {
  commands: AccountCommands;
  directory: AccountDirectory;
  secrets: SecretBox;
  clock: Clock;
  notifier: AccountChangeNotifier;
}) {
  const { commands, directory, secrets, clock, notifier } = deps;

  const storedKeys = (keys: IssuedKeys): StoredKeys => ({
    accessKeyHash: hashKey(keys.accessKey),
    sealedSecretKey: secrets.seal(keys.secretKey),
  });

  const run = async (accountId: string, command: Parameters<AccountCommands['handle']>[1]): Promise<OpenAccountState> => {
    const { state } = await commands.handle(accountId, command);
    // Every replica (this one included) has read the change before the caller hears it is done.
    await directory.refresh();
    await notifier.accountChanged(accountId);
    if (state.status !== 'Open') throw new AppError('not_found', 'The account was not found.');
    return state;
  };

  return {
    async openAccount(input: { name: string; plan: Plan; accessKey?: string; secretKey?: string }) {
      const keys: IssuedKeys = {
        accessKey: input.accessKey || generateAccessKey(),
        secretKey: input.secretKey || generateSecretKey(),
      };
      if (await directory.byAccessKeyHash(hashKey(keys.accessKey))) {
        throw new AppError('conflict', 'An account with this access key already exists.');
      }
      const accountId = `acc_${randomUUID().replaceAll('-', '')}`;
      const account = await run(accountId, {
        type: 'OpenAccount',
        data: { accountId, name: input.name, plan: input.plan, keys: storedKeys(keys) },
        metadata: { now: clock.now() },
      });
      await notifier.keysChanged(accountId);
      return { account, keys };
    },

    async rotateKeys(accountId: string) {
      const keys: IssuedKeys = { accessKey: generateAccessKey(), secretKey: generateSecretKey() };
      await run(accountId, { type: 'RotateKeys', data: { accountId, keys: storedKeys(keys) }, metadata: { now: clock.now() } });
      // The old key already fails on every replica that answered; edges only need to forget keys they
      // had refused, since the new one may be among them.
      await notifier.keysChanged(accountId);
      return keys;
    },

    changePlan: (accountId: string, plan: Plan) =>
      run(accountId, { type: 'ChangePlan', data: { accountId, plan }, metadata: { now: clock.now() } }),

    setSignatureRequirement: (accountId: string, required: boolean) =>
      run(accountId, { type: 'SetSignatureRequirement', data: { accountId, required }, metadata: { now: clock.now() } }),

    setBillingStatus: (accountId: string, billingStatus: BillingStatus) =>
      run(accountId, { type: 'SetBillingStatus', data: { accountId, billingStatus }, metadata: { now: clock.now() } }),
  };
}

export type AccountAdmin = ReturnType<typeof accountAdmin>;
