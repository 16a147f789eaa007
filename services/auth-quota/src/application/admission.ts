import type { Plan, PlanLimits } from '../domain/account/plans.js';
import { authentication } from './admission/authenticate.js';
import { admitting } from './admission/admit.js';
import { limitsAccess, openAccountIn } from './admission/limits-access.js';
import { settling } from './admission/settle.js';
import { usageReport } from './admission/usage.js';
import type { AccountDirectory, Clock, LimitsStore, SecretBox, UsageJournal } from './ports.js';

export type { AccountUsage, AdmitInput, Admitted, RateLease, Usage } from './admission/types.js';

/**
 * Authentication and admission of API requests, by job: who is asking (admission/authenticate), whether
 * it may (admission/admit: key, signature, rate limit, billing, plan, quota, renders in flight, rate
 * leases), settling what it reserved (admission/settle) and what it has used (admission/usage). The
 * account's limits are shared by every replica (LimitsStore); a reservation records who ends it (its
 * render job's outcome, or its holder's answer) and is settled by that one, once, whichever replica hears it.
 */
export function admission(deps: {
  directory: AccountDirectory;
  secrets: SecretBox;
  clock: Clock;
  limits: Record<Plan, PlanLimits>;
  store: LimitsStore;
  journal: UsageJournal;
  /** How long a reservation is held when its settler never ends it (its holder's process lost). */
  holdMs: number;
  newId: () => string;
  onJournalError?: (err: unknown) => void;
}) {
  const { directory, clock, limits } = deps;
  const access = limitsAccess(deps.store);
  const openAccount = openAccountIn(directory);
  const { authenticate, accountOf } = authentication(deps);
  const admit = admitting({ ...deps, accountOf, openAccount, limitsAccess: access });
  const settle = settling({ limitsAccess: access, clock, journal: deps.journal, onJournalError: deps.onJournalError });

  return {
    authenticate,
    ...admit,
    ...settle,
    signingKey: async (accountId: string): Promise<string> => deps.secrets.open((await openAccount(accountId)).keys.sealedSecretKey),
    usage: usageReport({ openAccount, limitsAccess: access, clock, limits }),
  };
}

export type Admission = ReturnType<typeof admission>;
