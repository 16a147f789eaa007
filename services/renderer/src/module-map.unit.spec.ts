import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkModuleMap, type ModuleMap } from '@app/testkit/module-map';

// The renderer's module map (docs/architecture.md), checked over every source file's relative imports:
// the browser pool knows nothing of renders, a render stands on the pool, the use case on the render,
// transports (adapters, the jobs consumer) on the use case; only the composition root sees them all.

/** Each module (a folder of src/, or a file of its root) and the modules it may import. */
const MAY_IMPORT: ModuleMap = {
  main: ['app', 'config'],
  app: ['adapters', 'application', 'browser', 'config', 'entrypoints', 'render', 'renderer-metrics'],
  entrypoints: ['application'],
  adapters: ['application'],
  application: ['render'],
  render: ['browser'],
  browser: [],
  'renderer-metrics': ['application', 'browser'],
  config: [],
};

const SRC = dirname(fileURLToPath(import.meta.url));

describe("The renderer's module map", () => {
  const { files, unmapped, problems } = checkModuleMap(MAY_IMPORT, SRC);

  it('should place every source file in a module of the map', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(unmapped).toEqual([]);
  });

  it('should have no import back up the map: the pool below the render, transports above the use case', () => {
    expect(problems).toEqual([]);
  });
});
