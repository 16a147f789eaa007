/** The account as the dashboard shows it (auth-quota's AccountConsoleService). */
export interface ConsoleAccount {
  accountId: string;
  name: string;
  plan: string;
  signatureRequired: boolean;
  billingStatus: string;
  rateLimitPerMinute: number;
  monthlyQuota: number;
  /** Changes with every key rotation: a session of an older generation is over. */
  keyGeneration: string;
}

export interface DailyUsage {
  month: string;
  days: { day: string; used: number }[];
}

/** auth-quota, as the dashboard needs it. Every call but signIn is for an account a session proved. */
export interface AccountConsole {
  /** keys_invalid (401) when the keys do not belong to one account (the edge throttles failures itself). */
  signIn(accessKey: string, secretKey: string): Promise<ConsoleAccount>;
  account(accountId: string): Promise<ConsoleAccount>;
  revealSecretKey(accountId: string): Promise<string>;
  rotateKeys(accountId: string): Promise<{ accessKey: string; secretKey: string; account: ConsoleAccount }>;
  setSignatureRequired(accountId: string, required: boolean): Promise<void>;
  /** Lowercase hex HMAC-SHA256 of the payload with the secret key (signed requests). */
  sign(accountId: string, payload: string): Promise<string>;
  dailyUsage(accountId: string): Promise<DailyUsage>;
}

/** A dashboard session as stored (shared by every edge replica). */
export interface SessionRecord {
  accountId: string;
  keyGeneration: string;
  /** The access key, sealed with a key derived from the session token (see session-token.ts). */
  sealedAccessKey: string;
  createdMs: number;
  expiresMs: number;
}

export interface SessionStore {
  put(sessionId: string, record: SessionRecord): Promise<void>;
  get(sessionId: string): Promise<SessionRecord | undefined>;
  remove(sessionId: string): Promise<void>;
}
