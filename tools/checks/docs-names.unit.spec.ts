import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Words about the code that cannot drift: every back-ticked path of the tree and every back-ticked code
 * name (a camelCase function or value, an UPPER_SNAKE setting) in README.md and docs/ must exist, so a
 * rename or a removal that leaves the docs behind fails here, not in a reader's hands.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const TREE_DIRS = ['services/', 'libs/', 'proto/', 'infra/', 'e2e/', 'bench/', 'scripts/', 'docs/', 'apps/', 'tools/', 'bench-results/', '.ci/'];
const CODE_DIRS = ['services', 'libs', 'proto', 'infra', 'e2e', 'bench', 'bench-results', 'scripts', 'apps', 'tools', 'docs', '.ci', 'docker-compose.yml', 'package.json'];

const documents = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const tracked = execFileSync('git', ['ls-files', '--', ...CODE_DIRS], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !f.includes('/gen/') && !/\.(png|jpe?g|pdf|mp4|webm|ico|woff2?)$/.test(f) && f !== 'tools/checks/docs-names.unit.spec.ts');
const code = tracked.map((f) => (existsSync(join(ROOT, f)) ? readFileSync(join(ROOT, f), 'utf8') : '')).join('\n');
const codeWords = new Set(code.match(/[A-Za-z_][A-Za-z0-9_]*/g));
/** Settings the code composes, such as `PLAN_${plan}_QUOTA`: each a pattern a documented name may match. */
const composedNames = [...code.matchAll(/\b([A-Z][A-Z0-9_]*_)\$\{[^}]+\}(_[A-Z0-9_]+)\b/g)].map(([, head, tail]) => new RegExp(`^${head}[A-Z0-9]+${tail}$`));
const nameExists = (name: string) => codeWords.has(name) || composedNames.some((p) => p.test(name));

/** `a/{b,c}.md` → `a/b.md`, `a/c.md`. */
const expandBraces = (path: string): string[] => {
  const m = /\{([^}]*)\}/.exec(path);
  return m ? m[1]!.split(',').flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length))) : [path];
};
/** Paths git ignores are what the tools write (bench-results/latest.md): documented, never in a clone. */
const isIgnored = (path: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '-q', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
};
/** A path of the tree as a clone has it (a tracked file or folder), with `*` standing for any name within one folder. */
const pathExists = (path: string): boolean => {
  if (!path.includes('*')) {
    const p = path.replace(/\/$/, '');
    return tracked.some((f) => f === p || f.startsWith(`${p}/`)) || isIgnored(p);
  }
  const pattern = new RegExp(`^${path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
  return tracked.some((f) => pattern.test(f));
};

function mentions(): { document: string; text: string; kind: 'path' | 'name' }[] {
  const found: { document: string; text: string; kind: 'path' | 'name' }[] = [];
  for (const document of documents) {
    for (const [, raw] of readFileSync(join(ROOT, document), 'utf8').matchAll(/`([^`\n]+)`/g)) {
      const text = raw!.trim();
      if (TREE_DIRS.some((d) => text.startsWith(d))) found.push({ document, text, kind: 'path' });
      else if (/^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(\(\))?$/.test(text) || /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(text)) found.push({ document, text, kind: 'name' });
    }
  }
  return found;
}

describe('README.md and docs/', () => {
  describe('When every back-ticked path and code name is looked for in the tree', () => {
    it('should find each one: a path as a file or folder, a name in the code', () => {
      const all = mentions();
      expect(all.length).toBeGreaterThan(100);
      const missing = all.filter(({ text, kind }) => {
        if (kind === 'name') return !nameExists(text.replace(/\(\)$/, ''));
        const path = text.split(/[\s:#]/)[0]!.replace(/[.,;]+$/, '');
        return !expandBraces(path).every(pathExists);
      });
      expect(missing.map(({ document, text }) => `${document}: ${text}`)).toEqual([]);
    });
  });
});
