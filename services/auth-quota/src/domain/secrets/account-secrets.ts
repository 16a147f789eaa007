import { AppError, ValidationError } from '@app/errors';
import { SECRET_NAME, SECRET_NAME_RULE } from '@app/render-params';

/** At most this many secrets per account. */
export const MAX_SECRETS = 100;
/** A secret's value is at most this many characters. */
export const MAX_SECRET_VALUE = 4_096;

export const secretsStreamId = (accountId: string) => `secrets-${accountId}`;

/** One secret as kept: its value sealed under the master key, never in the clear. */
export interface KeptSecret {
  sealed: string;
  createdMs: number;
  updatedMs: number;
}

export type AccountSecrets = { secrets: Record<string, KeptSecret> };

export type SecretCommand =
  | { type: 'PutSecret'; data: { name: string; sealed: string; nowMs: number } }
  | { type: 'DeleteSecret'; data: { name: string; nowMs: number } };

export type SecretEvent =
  | { type: 'SecretPut'; data: { name: string; sealed: string; atMs: number } }
  | { type: 'SecretDeleted'; data: { name: string; atMs: number } };

/** The checks of a secret given to POST /v1/secrets (names the field at fault). */
export function secretProblems(name: unknown, value: unknown): { parameter: string; message: string }[] {
  const problems: { parameter: string; message: string }[] = [];
  if (typeof name !== 'string' || !SECRET_NAME.test(name)) problems.push({ parameter: 'name', message: `name must be ${SECRET_NAME_RULE}` });
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SECRET_VALUE) {
    problems.push({ parameter: 'value', message: `value must be a string of 1 to ${MAX_SECRET_VALUE} characters` });
  }
  return problems;
}

export const secretsDecider = {
  initialState: (): AccountSecrets => ({ secrets: {} }),

  evolve(state: AccountSecrets, event: SecretEvent): AccountSecrets {
    const secrets = { ...state.secrets };
    if (event.type === 'SecretPut') {
      const before = secrets[event.data.name];
      secrets[event.data.name] = { sealed: event.data.sealed, createdMs: before?.createdMs ?? event.data.atMs, updatedMs: event.data.atMs };
    } else {
      delete secrets[event.data.name];
    }
    return { secrets };
  },

  decide(command: SecretCommand, state: AccountSecrets): SecretEvent[] {
    switch (command.type) {
      case 'PutSecret': {
        const { name, sealed, nowMs } = command.data;
        if (!Object.hasOwn(state.secrets, name) && Object.keys(state.secrets).length >= MAX_SECRETS) {
          throw new ValidationError([{ parameter: 'name', message: `an account holds at most ${MAX_SECRETS} secrets: delete one first` }]);
        }
        return [{ type: 'SecretPut', data: { name, sealed, atMs: nowMs } }];
      }
      case 'DeleteSecret': {
        const { name, nowMs } = command.data;
        if (!Object.hasOwn(state.secrets, name)) throw secretNotFound(name);
        return [{ type: 'SecretDeleted', data: { name, atMs: nowMs } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

export const secretNotFound = (name: string) => new AppError('secret_not_found', `The account has no secret named ${JSON.stringify(name)}.`);
