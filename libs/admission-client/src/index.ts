export { batchedAdmissions, type Admit } from './batched-admissions.js';
export { replicatedAuthQuotaClient } from './replicated-client.js';
export { announceReservationWithoutJob } from './reservation-outcomes.js';
