/**
 * What both faces of the edge's server (the public API, http/, and the dashboard, dashboard/) stand on:
 * admission (the access key, the route's usage, the reservation it holds), the security headers, and the
 * origin of file URLs. Neither face imports the other.
 */
export { admissionPlugin } from './admission.plugin.js';
export { accessKeyOf, inputOf, rawQueryOf, type RequestParts } from './access-key.js';
export { admitRequestOf, rateLimitHeaders } from './admit-request.js';
export { handOver, handedOver, type HandedOver } from './handed-over.js';
export { matchRoutes, routeOf, type MatchedRoute } from './route-of.js';
export { filesBaseUrl, reserveDeferredQuota, type HeldReservation } from './reservation.js';
export { SECURITY_HEADERS } from './security-headers.js';
