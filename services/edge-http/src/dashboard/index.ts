/**
 * The account dashboard at /dashboard (its JSON API and the page's files): its only face. The pieces
 * buildDashboard composes are here too, for the test that mounts them on the API's server with fakes.
 */
export { buildDashboard } from './build-dashboard.js';
export { dashboardPlugin } from './dashboard.plugin.js';
export { dashboardSessions } from './sessions.js';
export { signInThrottle } from './sign-in-throttle.js';
export type { AccountConsole, ConsoleAccount, SessionRecord } from './ports.js';
