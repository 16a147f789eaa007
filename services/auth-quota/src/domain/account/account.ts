import type { Plan } from './plans.js';

export type BillingStatus = 'paid' | 'unpaid';

interface Event<T extends string, D> {
  type: T;
  data: D;
}

/** Keys as stored: the access key only as a SHA-256 hash, the secret key sealed (it signs webhooks). */
export interface StoredKeys {
  accessKeyHash: string;
  sealedSecretKey: string;
}

export type AccountOpened = Event<'AccountOpened', { accountId: string; name: string; plan: Plan; keys: StoredKeys; openedAt: string }>;
export type AccountKeysRotated = Event<'AccountKeysRotated', { accountId: string; keys: StoredKeys; rotatedAt: string }>;
export type AccountPlanChanged = Event<'AccountPlanChanged', { accountId: string; plan: Plan; changedAt: string }>;
export type AccountSignatureRequirementChanged = Event<
  'AccountSignatureRequirementChanged',
  { accountId: string; required: boolean; changedAt: string }
>;
export type AccountBillingStatusChanged = Event<
  'AccountBillingStatusChanged',
  { accountId: string; billingStatus: BillingStatus; changedAt: string }
>;

export type AccountEvent =
  | AccountOpened
  | AccountKeysRotated
  | AccountPlanChanged
  | AccountSignatureRequirementChanged
  | AccountBillingStatusChanged;

export type AccountCommand =
  | { type: 'OpenAccount'; data: { accountId: string; name: string; plan: Plan; keys: StoredKeys }; metadata: { now: Date } }
  | { type: 'RotateKeys'; data: { accountId: string; keys: StoredKeys }; metadata: { now: Date } }
  | { type: 'ChangePlan'; data: { accountId: string; plan: Plan }; metadata: { now: Date } }
  | { type: 'SetSignatureRequirement'; data: { accountId: string; required: boolean }; metadata: { now: Date } }
  | { type: 'SetBillingStatus'; data: { accountId: string; billingStatus: BillingStatus }; metadata: { now: Date } };

export interface OpenAccountState {
  status: 'Open';
  accountId: string;
  name: string;
  plan: Plan;
  keys: StoredKeys;
  signatureRequired: boolean;
  billingStatus: BillingStatus;
}

export type Account = { status: 'Absent' } | OpenAccountState;

export const accountStreamId = (accountId: string) => `account-${accountId}`;
