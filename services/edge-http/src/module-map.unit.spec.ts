import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkModuleMap, moduleMapProblems, type ModuleMap } from '@app/testkit/module-map';

// The edge's module map (docs/architecture.md, "The edge's modules"), checked over every source file's
// relative imports by the test kit's checker: each module imports only the modules below it, and a module
// with an index.ts is entered only through it (a test may also use another module's testing/ doubles).

/** Each module (a folder of src/, or a file of its root) and the modules it may import. */
const MAY_IMPORT: ModuleMap = {
  main: ['app', 'config'],
  app: ['dashboard', 'http', 'web', 'results', 'tasks', 'application', 'adapters', 'admission', 'config', 'edge-metrics'],
  // The two faces of the one server, siblings: neither imports the other.
  dashboard: ['web', 'results', 'tasks', 'application'],
  http: ['web', 'results', 'tasks', 'application'],
  // What both faces stand on: admission, security headers, file URLs.
  web: ['application'],
  results: ['application', 'config'],
  // Tasks as the API shows them, with their routes (mounted by both faces).
  tasks: ['web'],
  application: [],
  // Adapters implement the ports of the modules they name; only the composition root imports them.
  adapters: ['application', 'tasks'],
  admission: ['application'],
  config: [],
  'edge-metrics': [],
};

const SRC = dirname(fileURLToPath(import.meta.url));

describe("The edge's module map", () => {
  const { files, unmapped, problems } = checkModuleMap(MAY_IMPORT, SRC);

  it('should place every source file in a module of the map', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(unmapped).toEqual([]);
  });

  it('should have no import back up the map, and none past an index.ts', () => {
    // (This file's own examples below are text, not imports.)
    expect(problems).toEqual([]);
  });

  describe('When a file imports a module above it, or reaches past a face', () => {
    it('should name each such import', () => {
      const tree: Record<string, string> = {
        'results/index.ts': "export { buildResults } from './build-results.js';",
        'results/build-results.ts': "import type { HttpDeps } from '../http/index.js';\nimport {\n  x,\n} from './ports.js';",
        'dashboard/index.ts': "export { buildDashboard } from './build-dashboard.js';",
        'http/routes/files.routes.ts': "import type { OpenResultFile } from '../../results/result-file.js';",
        'http/build-server.ts': "const d = await import('../dashboard/index.js');",
        'http/index.ts': "export * from './build-server.js';",
        'http/x.unit.spec.ts': "import { fakeFiles } from '../results/testing/fakes.js';\nimport { buildResults } from '../results/index.js';",
        'app.ts': "import { buildDashboard } from './dashboard/index.js';",
      };
      expect(moduleMapProblems(MAY_IMPORT, Object.keys(tree), (f) => tree[f]!)).toEqual([
        'results/build-results.ts imports http/index.ts: results may not import http',
        'http/routes/files.routes.ts imports results/result-file.ts: results is entered through results/index.ts',
        'http/build-server.ts imports dashboard/index.ts: http may not import dashboard',
      ]);
    });
  });
});
