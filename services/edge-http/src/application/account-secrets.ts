/** A secret as the API shows it: its name and dates, never its value. */
export interface SecretInfo {
  name: string;
  createdMs: number;
  updatedMs: number;
}

/** An account's secrets, kept sealed by auth-quota: the edge writes them and lists names, never reads a value. */
export interface AccountSecrets {
  put(accountId: string, name: string, value: string): Promise<{ secret: SecretInfo; created: boolean }>;
  list(accountId: string): Promise<SecretInfo[]>;
  remove(accountId: string, name: string): Promise<void>;
}
