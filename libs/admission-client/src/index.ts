export { batchedAdmissions, type Admit } from './batched-admissions.js';
