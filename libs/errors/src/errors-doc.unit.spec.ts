import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorsDocument } from './errors-doc.js';

const DOC = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url));

describe('docs/errors.md', () => {
  it('should be the document generated from the error table', () => {
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, errorsDocument());
    expect(readFileSync(DOC, 'utf8'), 'regenerate with UPDATE_DOCS=1 npx vitest run --project unit libs/errors').toBe(errorsDocument());
  });
});
