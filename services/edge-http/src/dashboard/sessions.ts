import { AppError, hasCode } from '@app/errors';
import type { Clock } from '../application/ports.js';
import type { AccountConsole, ConsoleAccount, SessionStore } from './ports.js';
import { csrfTokenOf, isSessionTokenShaped, newSessionToken, openWithToken, sealWithToken, sessionIdOf } from './session-token.js';

/** Sessions last 12 hours (decisions: Account dashboard). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface ActiveSession {
  token: string;
  csrfToken: string;
  accessKey: string;
  account: ConsoleAccount;
  expiresMs: number;
}

const expired = (message = 'Your session has ended. Sign in again.') => new AppError('session_expired', message);

/**
 * Dashboard sessions: opened by both keys, kept in a store every edge replica reads, over after 12
 * hours, at sign-out, or as soon as the account's keys are rotated (each use checks the key generation
 * with auth-quota, so a rotation made anywhere ends every older session at once).
 */
export function dashboardSessions(deps: { store: SessionStore; console: AccountConsole; clock: Clock; ttlMs?: number }) {
  const ttlMs = deps.ttlMs ?? SESSION_TTL_MS;

  const open = async (account: ConsoleAccount, accessKey: string): Promise<ActiveSession> => {
    const token = newSessionToken();
    const nowMs = deps.clock.now().getTime();
    const expiresMs = nowMs + ttlMs;
    await deps.store.put(sessionIdOf(token), {
      accountId: account.accountId,
      keyGeneration: account.keyGeneration,
      sealedAccessKey: sealWithToken(token, accessKey),
      createdMs: nowMs,
      expiresMs,
    });
    return { token, csrfToken: csrfTokenOf(token), accessKey, account, expiresMs };
  };

  const end = async (token: string | undefined) => {
    if (token && isSessionTokenShaped(token)) await deps.store.remove(sessionIdOf(token));
  };

  return {
    async signIn(accessKey: string, secretKey: string): Promise<ActiveSession> {
      return open(await deps.console.signIn(accessKey, secretKey), accessKey);
    },

    /** The live session of a cookie, or session_expired. */
    async resume(token: string | undefined): Promise<ActiveSession> {
      if (!token || !isSessionTokenShaped(token)) throw expired();
      const record = await deps.store.get(sessionIdOf(token));
      if (!record || record.expiresMs <= deps.clock.now().getTime()) throw expired();
      const accessKey = openWithToken(token, record.sealedAccessKey);
      if (!accessKey) throw expired();
      let account: ConsoleAccount;
      try {
        account = await deps.console.account(record.accountId);
      } catch (err) {
        if (hasCode(err, 'session_expired') || hasCode(err, 'not_found')) throw expired();
        throw err;
      }
      if (account.keyGeneration !== record.keyGeneration) {
        await end(token);
        throw expired('Your keys were rotated, so this session has ended. Sign in with the new keys.');
      }
      return { token, csrfToken: csrfTokenOf(token), accessKey, account, expiresMs: record.expiresMs };
    },

    end,

    /** Rotates the keys: every older session ends; the one that asked continues under a new token. */
    async rotate(session: ActiveSession) {
      const rotated = await deps.console.rotateKeys(session.account.accountId);
      await end(session.token);
      return { keys: { accessKey: rotated.accessKey, secretKey: rotated.secretKey }, session: await open(rotated.account, rotated.accessKey) };
    },
  };
}

export type DashboardSessions = ReturnType<typeof dashboardSessions>;
