import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkModuleMap, type ModuleMap } from '@app/testkit/module-map';

// The scheduler's module map (docs/architecture.md), checked over every source file's relative imports:
// the domain is pure and imports nothing of the service; use cases stand on the domain, the schedule, the
// projections' read models and the comparison; transports (adapters, entry points) stand on the use cases;
// only the composition root sees them all.

/** Each module (a folder of src/, or a file of its root) and the modules it may import. */
const MAY_IMPORT: ModuleMap = {
  main: ['app', 'config'],
  app: ['adapters', 'application', 'entrypoints', 'projections', 'config', 'scheduler-metrics', 'domain', 'comparison', 'schedule'],
  entrypoints: ['application', 'domain', 'projections'],
  adapters: ['application', 'domain', 'comparison'],
  application: ['domain', 'schedule', 'projections', 'comparison', 'bounded-memo'],
  projections: ['domain'],
  comparison: ['domain'],
  schedule: ['domain', 'bounded-memo'],
  domain: [],
  'bounded-memo': [],
  config: [],
  'scheduler-metrics': [],
  // Test doubles of the ports and the int tests' harness (only tests import them).
  testing: ['app', 'application', 'domain', 'adapters', 'config', 'projections', 'comparison', 'entrypoints'],
};

const SRC = dirname(fileURLToPath(import.meta.url));

describe("The scheduler's module map", () => {
  const { files, unmapped, problems } = checkModuleMap(MAY_IMPORT, SRC);

  it('should place every source file in a module of the map', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(unmapped).toEqual([]);
  });

  it('should have no import back up the map: a pure domain, transports only above the use cases', () => {
    expect(problems).toEqual([]);
  });
});
