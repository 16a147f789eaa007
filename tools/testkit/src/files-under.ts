import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under a folder (to search a stack's data folder for what must not be there). */
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s) return [];
    return s.isDirectory() ? filesUnder(path) : s.isFile() ? [path] : [];
  });
