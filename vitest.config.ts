import { defineConfig } from 'vitest/config';

// Tests are tiered by file suffix (design/style.md): unit (pure, no I/O), int and contract (real NATS,
// Chromium, SQLite), e2e (the whole stack as `npm start` runs it, over HTTPS).
const sources = '{libs,services}/*/src/**';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [`${sources}/*.unit.spec.ts`, 'bench/src/**/*.unit.spec.ts'],
          sequence: { groupOrder: 0 },
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'int',
          sequence: { groupOrder: 1 },
          include: [`${sources}/*.int.spec.ts`, `${sources}/*.contract.spec.ts`],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'e2e',
          sequence: { groupOrder: 2 },
          include: ['e2e/**/*.e2e.spec.ts'],
          exclude: ['e2e/compose.e2e.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        // docker-compose.yml in containers (podman, provisioned by the global setup), through testcontainers.
        test: {
          name: 'compose',
          sequence: { groupOrder: 3 },
          include: ['e2e/compose.e2e.spec.ts'],
          globalSetup: ['e2e/containers.global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
