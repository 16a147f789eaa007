import { describe, expect, it } from 'vitest';
import { hasCode } from '@app/errors';
import type { Account, AccountCommand, AccountEvent } from './account.js';
import { decide, evolve, initialState } from './account.decider.js';

const now = new Date('2026-11-23T10:00:00Z');
const keys = { accessKeyHash: 'h1', sealedSecretKey: 's1' };
const opened: AccountEvent = {
  type: 'AccountOpened',
  data: { accountId: 'acc_1', name: 'Demo', plan: 'basic', keys, openedAt: now.toISOString() },
};

const given = (events: AccountEvent[]): Account => events.reduce(evolve, initialState());

describe('Account decider', () => {
  describe('When the account does not exist', () => {
    it('should open it on the given plan, paid, without signatures', () => {
      const command: AccountCommand = { type: 'OpenAccount', data: { accountId: 'acc_1', name: 'Demo', plan: 'basic', keys }, metadata: { now } };
      const events = decide(command, given([]));
      expect(events).toEqual([opened]);
      expect(given(events)).toMatchObject({ status: 'Open', plan: 'basic', billingStatus: 'paid', signatureRequired: false });
    });

    it('should refuse to rotate its keys', () => {
      const command: AccountCommand = { type: 'RotateKeys', data: { accountId: 'acc_1', keys }, metadata: { now } };
      expect(() => decide(command, given([]))).toThrowError(expect.objectContaining({ code: 'not_found' }));
    });
  });

  describe('When the account is open', () => {
    it('should refuse to open it twice', () => {
      const command: AccountCommand = { type: 'OpenAccount', data: { accountId: 'acc_1', name: 'Demo', plan: 'basic', keys }, metadata: { now } };
      let error: unknown;
      try {
        decide(command, given([opened]));
      } catch (e) {
        error = e;
      }
      expect(hasCode(error, 'conflict')).toBe(true);
    });

    it('should replace the keys on rotation', () => {
      const next = { accessKeyHash: 'h2', sealedSecretKey: 's2' };
      const events = decide({ type: 'RotateKeys', data: { accountId: 'acc_1', keys: next }, metadata: { now } }, given([opened]));
      expect(given([opened, ...events])).toMatchObject({ keys: next });
    });

    it('should decide nothing when the plan does not change', () => {
      expect(decide({ type: 'ChangePlan', data: { accountId: 'acc_1', plan: 'basic' }, metadata: { now } }, given([opened]))).toEqual([]);
    });

    it('should record a plan change, a signature requirement and an unpaid invoice', () => {
      const s0 = given([opened]);
      const e1 = decide({ type: 'ChangePlan', data: { accountId: 'acc_1', plan: 'scale' }, metadata: { now } }, s0);
      const e2 = decide({ type: 'SetSignatureRequirement', data: { accountId: 'acc_1', required: true }, metadata: { now } }, s0);
      const e3 = decide({ type: 'SetBillingStatus', data: { accountId: 'acc_1', billingStatus: 'unpaid' }, metadata: { now } }, s0);
      expect(given([opened, ...e1, ...e2, ...e3])).toMatchObject({ plan: 'scale', signatureRequired: true, billingStatus: 'unpaid' });
    });
  });
});
