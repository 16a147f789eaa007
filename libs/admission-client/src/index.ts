export { batchedAdmissions, type Admit } from './batched-admissions.js';
export { replicatedAuthQuotaClient } from './replicated-client.js';
export { announceReservationEnded } from './reservation-outcomes.js';
export { RATE_LEASE_LIFE_MS, leaseEligible, type LeaseCandidate } from './rate-lease-terms.js';
