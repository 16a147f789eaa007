/** The edge's admission module: its only face. */
export { edgeAdmission, type EdgeAdmission } from './edge-admission.js';
export { grpcAuthQuota } from './grpc-auth-quota.js';
export type { AuthQuotaClient } from './auth-quota-client.js';
