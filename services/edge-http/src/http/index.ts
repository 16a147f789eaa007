/**
 * The edge's HTTP module: the public API's server and routes, and the pieces another face served by the
 * same server (the dashboard) uses as the API does: admission, security headers, file URLs. Its only face.
 */
export { buildServer, type HttpDeps } from './build-server.js';
export { admissionPlugin } from './plugins/admission.plugin.js';
export { taskRoutes } from './routes/tasks.routes.js';
export { SECURITY_HEADERS } from './security-headers.js';
export { filesBaseUrl } from './reservation.js';
