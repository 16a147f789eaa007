/** The account dashboard at /dashboard (its JSON API and the page's files): its only face. */
export { buildDashboard } from './build-dashboard.js';
