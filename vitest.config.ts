import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Tests are tiered by file suffix (design/style.md): unit (pure, no I/O), int and contract (real NATS,
// Chromium, SQLite), e2e (the whole stack as `npm start` runs it, over HTTPS).
const sources = '{libs,services,apps,tools}/*/src/**';

/**
 * End-to-end files that run with no other stack beside them: they measure capacity or time (overload, fair
 * slots, screencast frames, how long a cluster's requests are disturbed), or kill and hang processes and
 * count on being brought back in time.
 */
const ALONE = [
  'auth-quota-replicas',
  'bus-hung',
  'fair-slots',
  'health',
  'metrics',
  'nats-cluster',
  'overload',
  'screencast',
  'supervision',
].map((name) => `e2e/${name}.e2e.spec.ts`);

/**
 * The end-to-end files that take longest, started first so that
 * the lanes end together. Vitest orders a fresh clone's files by size, with no timings cached.
 */
const LONGEST = ['monitoring-kill', 'dashboard', 'keep-session', 'secrets-steps', 'render-path'].map((name) => `/e2e/${name}.e2e.spec.ts`);

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((end) => f.moduleId.endsWith(end));
      return i === -1 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// Every project runs with `isolate: false`: a worker loads the modules once for all the files it runs,
// not once per file (which made the unit lane 69 s instead of 14 s and the int lane 337 s instead of 274 s).
// No test changes process-wide state that another file would see; the telemetry SDK can be started again
// after a shutdown in the same process.
export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: [`${sources}/*.unit.spec.ts`, 'bench/src/**/*.unit.spec.ts', 'tools/checks/*.unit.spec.ts'],
          sequence: { groupOrder: 0 },
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'int',
          sequence: { groupOrder: 1 },
          isolate: false,
          include: [`${sources}/*.int.spec.ts`, `${sources}/*.contract.spec.ts`],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
      {
        // Three stacks at a time on two cores: past its start (about 10 s of CPU), a stack mostly waits on
        // renders and the clock.
        test: {
          name: 'e2e',
          isolate: false,
          sequence: { groupOrder: 2 },
          include: ['e2e/**/*.e2e.spec.ts'],
          exclude: ['e2e/compose.e2e.spec.ts', ...ALONE],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 3,
        },
      },
      {
        test: {
          name: 'e2e-alone',
          isolate: false,
          sequence: { groupOrder: 3 },
          include: ALONE,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        // docker-compose.yml in containers (podman and the image prepared in the background from the start of the
        // run by the global setup, awaited by the test), through testcontainers. Alone: beside the e2e lane its
        // seven containers took 76 s to start instead of 26 s, and every stack's consumers missed heartbeats.
        test: {
          name: 'compose',
          isolate: false,
          sequence: { groupOrder: 4 },
          include: ['e2e/compose.e2e.spec.ts'],
          globalSetup: ['e2e/containers.global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
