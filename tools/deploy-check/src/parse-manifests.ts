import { parseAllDocuments } from 'yaml';

export interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  [key: string]: unknown;
}

/** Every document of a multi-document YAML text (empty documents skipped); a syntax error throws, naming the source. */
export function parseManifests(text: string, source: string): Manifest[] {
  const docs = parseAllDocuments(text);
  const out: Manifest[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value as Manifest);
  }
  return out;
}
