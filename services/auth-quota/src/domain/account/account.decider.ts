import { AppError } from '@app/errors';
import type { Account, AccountCommand, AccountEvent } from './account.js';

export const initialState = (): Account => ({ status: 'Absent' });

export const evolve = (state: Account, event: AccountEvent): Account => {
  switch (event.type) {
    case 'AccountOpened':
      return {
        status: 'Open',
        accountId: event.data.accountId,
        name: event.data.name,
        plan: event.data.plan,
        keys: event.data.keys,
        signatureRequired: false,
        billingStatus: 'paid',
      };
    case 'AccountKeysRotated':
      return state.status === 'Open' ? { ...state, keys: event.data.keys } : state;
    case 'AccountPlanChanged':
      return state.status === 'Open' ? { ...state, plan: event.data.plan } : state;
    case 'AccountSignatureRequirementChanged':
      return state.status === 'Open' ? { ...state, signatureRequired: event.data.required } : state;
    case 'AccountBillingStatusChanged':
      return state.status === 'Open' ? { ...state, billingStatus: event.data.billingStatus } : state;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
};

export const decide = (command: AccountCommand, state: Account): AccountEvent[] => {
  const at = command.metadata.now.toISOString();
  if (command.type === 'OpenAccount') {
    if (state.status !== 'Absent') throw new AppError('conflict', 'The account already exists.');
    return [{ type: 'AccountOpened', data: { ...command.data, openedAt: at } }];
  }
  if (state.status !== 'Open') throw new AppError('not_found', 'The account was not found.');
  const { accountId } = command.data;
  switch (command.type) {
    case 'RotateKeys':
      return [{ type: 'AccountKeysRotated', data: { accountId, keys: command.data.keys, rotatedAt: at } }];
    case 'ChangePlan':
      if (state.plan === command.data.plan) return [];
      return [{ type: 'AccountPlanChanged', data: { accountId, plan: command.data.plan, changedAt: at } }];
    case 'SetSignatureRequirement':
      if (state.signatureRequired === command.data.required) return [];
      return [{ type: 'AccountSignatureRequirementChanged', data: { accountId, required: command.data.required, changedAt: at } }];
    case 'SetBillingStatus':
      if (state.billingStatus === command.data.billingStatus) return [];
      return [
        { type: 'AccountBillingStatusChanged', data: { accountId, billingStatus: command.data.billingStatus, changedAt: at } },
      ];
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
};

export const accountDecider = { decide, evolve, initialState };
