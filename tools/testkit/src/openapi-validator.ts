import { Ajv2020 } from 'ajv/dist/2020.js';
import type { HttpsResponse } from './https-client.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DOC_ID = 'openapi.json';

/**
 * Checks responses against an OpenAPI 3.1 document: the operation of the method and path, the response
 * of the status (or `default`), the media type, the JSON body against its schema (JSON Schema 2020-12,
 * `$ref`s into the document resolved) and the headers the response declares (present headers must
 * match their schema). Returns the problems found; none means the response is described.
 */
export function openApiValidator(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document, DOC_ID);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorAt = (pointer: string) => {
    let v = compiled.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      compiled.set(pointer, v);
    }
    return v;
  };
  const deref = (node: Json): Json => {
    if (typeof node?.$ref !== 'string') return node;
    const path = (node.$ref as string).replace(/^#\//, '').split('/');
    return deref(path.reduce<Json>((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document));
  };
  const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

  /** The document's path template matching a concrete path (`/v1/tasks/12` → `/v1/tasks/{id}`). */
  const templateOf = (path: string): string | undefined => {
    const segments = path.split('/');
    const matches = (template: string) => {
      const parts = template.split('/');
      return parts.length === segments.length && parts.every((p, i) => (/^\{[^}]+\}$/.test(p) ? segments[i] !== '' : p === segments[i]));
    };
    // A literal path wins over a template (/v1/tasks/{id} vs a fixed path of the same length).
    const candidates = Object.keys(document.paths ?? {}).filter(matches);
    return candidates.find((t) => !t.includes('{')) ?? candidates[0];
  };

  return {
    templateOf,
    check(method: string, url: string, res: Pick<HttpsResponse, 'status' | 'headers' | 'body'>): string[] {
      const path = url.split('?')[0]!;
      const template = templateOf(path);
      if (!template) return [`${method} ${path}: no path of the document matches`];
      const operation = document.paths[template][method.toLowerCase()] as Json | undefined;
      if (!operation) return [`${method} ${template}: no such operation in the document`];
      const status = String(res.status);
      const responseKey = operation.responses[status] ? status : operation.responses.default ? 'default' : undefined;
      if (!responseKey) return [`${method} ${template}: status ${status} is not documented`];
      const response = deref(operation.responses[responseKey]);
      const problems: string[] = [];
      const where = `${method} ${template} ${status}`;

      for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
        const value = res.headers[name.toLowerCase()];
        const h = deref(header as Json);
        if (value === undefined) {
          if (h.required) problems.push(`${where}: header ${name} is missing`);
          continue;
        }
        const schema = h.schema ?? {};
        const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
        const ok = ajv.validate(schema, typed);
        if (!ok) problems.push(`${where}: header ${name}=${String(value)}: ${ajv.errorsText(ajv.errors)}`);
      }

      const content = response.content as Json | undefined;
      const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (!content) {
        if (res.body.length > 0) problems.push(`${where}: a body was sent where none is documented`);
        return problems;
      }
      const mediaKey = Object.keys(content).find((m) => m === type || m === '*/*' || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
      if (!mediaKey) return [...problems, `${where}: content type ${type} is not documented (${Object.keys(content).join(', ')})`];
      if (mediaKey === 'application/json' || type === 'application/json') {
        let body: unknown;
        try {
          body = JSON.parse(res.body.toString('utf8'));
        } catch {
          return [...problems, `${where}: the body is not JSON`];
        }
        const pointer = `/paths/${escape(template)}/${method.toLowerCase()}/responses/${responseKey}`;
        const refOrInline = operation.responses[responseKey].$ref as string | undefined;
        const schemaPointer = `${refOrInline ? refOrInline.slice(1) : pointer}/content/${escape(mediaKey)}/schema`;
        const validate = validatorAt(schemaPointer);
        if (!validate(body)) problems.push(`${where}: body ${ajv.errorsText(validate.errors)}`);
      }
      return problems;
    },
  };
}
