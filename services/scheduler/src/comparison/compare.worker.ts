import { runCompareJob } from './compare-job.js';

/** The entry of the comparison worker threads (piscina runs the default export for each job). */
export default runCompareJob;
