import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * A service's module map, checked over every source file's relative imports: each module (a folder of
 * src/, or a file of its root) imports only the modules the map lets it, and a module with an index.ts is
 * entered only through it (a test may also use another module's testing/ doubles, and the service's own
 * src/testing/). Each service's
 * module-map.unit.spec.ts declares its map; this is the one checker.
 */
export type ModuleMap = Readonly<Record<string, readonly string[]>>;

/** The module a file (a path relative to src/, with `/`) belongs to; root spec files test the whole service (`app`). */
export const moduleOf = (file: string): string => {
  const [first, ...rest] = file.split('/');
  if (rest.length > 0) return first!;
  return first!.endsWith('.spec.ts') ? 'app' : first!.replace(/\.ts$/, '');
};

/** The relative modules a source text imports or re-exports (static, side-effect and dynamic imports). */
export function relativeImports(source: string): string[] {
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
function problemOf(map: ModuleMap, file: string, target: string, faces: ReadonlySet<string>): string | undefined {
  const from = moduleOf(file);
  const to = moduleOf(target);
  if (from === to) return undefined;
  // A service's own test doubles (src/testing/) are for its tests.
  if (to === 'testing' && isTest(file)) return undefined;
  if (!(map[from] ?? []).includes(to)) return `${file} imports ${target}: ${from} may not import ${to}`;
  if (!faces.has(to) || target === `${to}/index.ts`) return undefined;
  if (isTest(file) && target.startsWith(`${to}/testing/`)) return undefined;
  return `${file} imports ${target}: ${to} is entered through ${to}/index.ts`;
}

/** Every .ts file under `srcDir`, relative to it, with `/`. */
export function sourceFiles(srcDir: string, dir = srcDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(srcDir, path);
    return entry.name.endsWith('.ts') ? [relative(srcDir, path).split(sep).join('/')] : [];
  });
}

/** Each import of `files` the map does not allow, named. */
export function moduleMapProblems(map: ModuleMap, files: readonly string[], read: (file: string) => string): string[] {
  const faces = new Set(files.filter((f) => /^[^/]+\/index\.ts$/.test(f)).map(moduleOf));
  return files.flatMap((file) =>
    relativeImports(read(file)).flatMap((specifier) => {
      const target = normalize(join(dirname(file), specifier)).split(sep).join('/').replace(/\.js$/, '.ts');
      return problemOf(map, file, target, faces) ?? [];
    }),
  );
}

/** The map's problems over a service's src/: files in no module of the map, and imports it does not allow. */
export function checkModuleMap(map: ModuleMap, srcDir: string, self = 'module-map.unit.spec.ts'): { files: string[]; unmapped: string[]; problems: string[] } {
  const files = sourceFiles(srcDir);
  const sources = files.filter((f) => f !== self);
  return {
    files,
    unmapped: files.filter((f) => !(moduleOf(f) in map)),
    problems: moduleMapProblems(map, sources, (f) => readFileSync(join(srcDir, f), 'utf8')),
  };
}
