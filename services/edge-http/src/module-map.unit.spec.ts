import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The edge's module map (docs/architecture.md, "The edge's modules"), checked over every source file's
// relative imports: each module imports only the modules below it, and a module with an index.ts is
// entered only through it (a test may also use another module's testing/ doubles).

/** Each module (a folder of src/, or a file of its root) and the modules it may import. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  main: ['app', 'config'],
  app: ['dashboard', 'http', 'results', 'tasks', 'application', 'adapters', 'admission', 'config', 'edge-metrics'],
  dashboard: ['http', 'results', 'tasks', 'application'],
  http: ['results', 'tasks', 'application'],
  results: ['application', 'config'],
  tasks: [],
  application: [],
  // Adapters implement the ports of the modules they name; only the composition root imports them.
  adapters: ['application', 'tasks'],
  admission: ['application'],
  config: [],
  'edge-metrics': [],
};

const SRC = dirname(fileURLToPath(import.meta.url));

/** The module a file (a path relative to src/, with `/`) belongs to; root spec files test the whole edge. */
const moduleOf = (file: string): string => {
  const [first, ...rest] = file.split('/');
  if (rest.length > 0) return first!;
  return first!.endsWith('.spec.ts') ? 'app' : first!.replace(/\.ts$/, '');
};

/** The relative modules a source text imports or re-exports (static, side-effect and dynamic imports). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of source.matchAll(pattern)) {
    const specifier = m[1] ?? m[2]!;
    if (specifier.startsWith('.')) found.push(specifier);
  }
  return found;
}

const isTest = (file: string) => file.endsWith('.spec.ts') || file.split('/').includes('testing');

/** What is wrong with one import of `file` (both relative to src/, with `/`), or undefined. */
function problemOf(file: string, target: string, faces: ReadonlySet<string>): string | undefined {
  const from = moduleOf(file);
  const to = moduleOf(target);
  if (from === to) return undefined;
  if (!(MAY_IMPORT[from] ?? []).includes(to)) return `${file} imports ${target}: ${from} may not import ${to}`;
  if (!faces.has(to) || target === `${to}/index.ts`) return undefined;
  if (isTest(file) && target.startsWith(`${to}/testing/`)) return undefined;
  return `${file} imports ${target}: ${to} is entered through ${to}/index.ts`;
}

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path).split(sep).join('/')] : [];
  });
}

function problemsOf(files: readonly string[], read: (file: string) => string): string[] {
  const faces = new Set(files.filter((f) => /^[^/]+\/index\.ts$/.test(f)).map(moduleOf));
  return files.flatMap((file) =>
    relativeImports(read(file)).flatMap((specifier) => {
      const target = normalize(join(dirname(file), specifier)).split(sep).join('/').replace(/\.js$/, '.ts');
      return problemOf(file, target, faces) ?? [];
    }),
  );
}

describe("The edge's module map", () => {
  const files = sourceFiles();

  it('should place every source file in a module of the map', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => !(moduleOf(f) in MAY_IMPORT))).toEqual([]);
  });

  it('should have no import back up the map, and none past an index.ts', () => {
    // (This file's own examples below are text, not imports.)
    const sources = files.filter((f) => f !== 'module-map.unit.spec.ts');
    expect(problemsOf(sources, (f) => readFileSync(join(SRC, f), 'utf8'))).toEqual([]);
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
      expect(problemsOf(Object.keys(tree), (f) => tree[f]!)).toEqual([
        'results/build-results.ts imports http/index.ts: results may not import http',
        'http/routes/files.routes.ts imports results/result-file.ts: results is entered through results/index.ts',
        'http/build-server.ts imports dashboard/index.ts: http may not import dashboard',
      ]);
    });
  });
});
