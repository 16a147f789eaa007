import { runCompareJob } from './compare-job.js';

/** The entry of the comparison worker threads (piscina runs the default export for each job). */
export default runCompareJob;
/** Two kept runs compared (piscina runs it when a job names it). */
export { runComparePair as comparePair } from './compare-job.js';
