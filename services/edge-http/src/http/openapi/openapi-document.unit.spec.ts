import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createLogger } from '@app/logging';
import { ERROR_CODES, ValidationError } from '@app/errors';
import { FORMAT_BY_OPERATION, OPERATIONS, PARAMETERS, validateRenderParams, type Operation } from '@app/render-params';
import { buildServer } from '../build-server.js';
import { TASK_FIELDS } from '../../tasks/index.js';
import { buildOpenApiDocument, operationParameters } from './openapi-document.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const unused = () => {
  throw new Error('not called by these tests');
};

let app: FastifyInstance;
let doc: Json;

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota: { admit: unused, tryNow: () => undefined, leasesKey: () => false, reserve: unused, usage: unused },
    renderSync: unused,
    health: async () => ({}),
    asyncRenders: { renderAsync: unused, renderCached: unused, getRenderStatus: unused, openResultFile: unused, quota: { commit: unused, release: unused } as never },
    tasks: { scheduler: { create: unused, list: unused, get: unused, update: unused, remove: unused, runs: unused } },
    secrets: { put: unused, list: unused, remove: unused },
  });
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json();
});

afterAll(async () => app?.close());

const base: Record<Operation, Record<string, unknown>> = {
  screenshot: { url: 'https://example.com/' },
  pdf: { url: 'https://example.com/' },
  scrape: { url: 'https://example.com/' },
  screencast: { url: 'https://example.com/' },
};
/** What a parameter needs beside it (the rules across parameters), so it is judged alone. */
const COMPANIONS: Record<string, Record<string, unknown>> = {
  full_page_scroll_by_amount: { full_page_scroll: true },
  full_page_scroll_by_duration: { full_page_scroll: true },
  full_page_max_height: { full_page: true },
  geolocation_accuracy: { geolocation_latitude: 1, geolocation_longitude: 1 },
  geolocation_latitude: { geolocation_longitude: 1 },
  geolocation_longitude: { geolocation_latitude: 1 },
  clip_x: { clip_width: 10, clip_height: 10 },
  clip_y: { clip_width: 10, clip_height: 10 },
  clip_width: { clip_height: 10 },
  clip_height: { clip_width: 10 },
  ...Object.fromEntries(
    ['scroll_by_amount', 'scroll_by_delay', 'scroll_by_duration', 'scroll_back', 'scroll_back_delay', 'scroll_easing'].map((n) => [n, { scenario: 'scroll' }]),
  ),
};
const accepts = (operation: Operation, name: string, value: unknown): boolean => {
  try {
    validateRenderParams(operation, { ...base[operation], ...COMPANIONS[name], [name]: value });
    return true;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return !(err.details ?? []).some((d) => d.parameter === name);
  }
};

describe('GET /openapi.json', () => {
  describe('When the document is linted with Redocly’s recommended rules', () => {
    it('should be a valid OpenAPI 3.1 document with no error and no warning', async () => {
      expect(doc.openapi).toBe('3.1.0');
      const config = await createConfig({ extends: ['recommended'] });
      const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
      expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    });
  });

  describe('When a client looks up the webhooks it may receive', () => {
    it('should find render.finished and task.changed, each with its body schema and the signature headers', () => {
      for (const [name, schema] of [
        ['render.finished', 'RenderWebhook'],
        ['task.changed', 'TaskChangedWebhook'],
      ]) {
        const post = doc.webhooks[name!].post;
        expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${schema}` });
        expect(post.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-service-signature']);
      }
      expect(doc.components.schemas.TaskChangedWebhook.required).toEqual(
        expect.arrayContaining(['type', 'task_id', 'run_id', 'score', 'summary', 'before', 'after', 'diff', 'created']),
      );
      expect(doc.components.schemas.RenderWebhook.properties.status.enum).toEqual(['succeeded', 'failed']);
    });
  });

  describe('When the routes the server registered are compared with the document', () => {
    it('should describe every one of them (HEAD aside), and only routes the server answers', () => {
      const documented = Object.entries(doc.paths as Json).flatMap(([path, ops]) => Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`));
      const expected = [
        'GET /healthz',
        'GET /openapi.json',
        'GET /v1/files/{name}',
        ...OPERATIONS.flatMap((op) => [`GET /v1/${op}`, `POST /v1/${op}`]),
        'GET /v1/renders/{id}',
        'GET /v1/usage',
        'GET /v1/devices',
        'POST /v1/tasks',
        'GET /v1/tasks',
        'GET /v1/tasks/{id}',
        'PATCH /v1/tasks/{id}',
        'DELETE /v1/tasks/{id}',
        'GET /v1/tasks/{id}/runs',
      ];
      expect(documented).toEqual(expect.arrayContaining(expected));
      // Every documented operation is a route the server answers (not a 404 from the router).
      for (const op of documented) {
        const [method, path] = op.split(' ') as [string, string];
        expect(app.hasRoute({ method: method as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), op).toBe(true);
      }
    });
  });

  describe('When a validated render parameter is looked for in the document', () => {
    it.each(OPERATIONS)('should list every parameter %s validates, in the GET query and the POST body', (operation) => {
      const validated = Object.entries(PARAMETERS)
        .filter(([name, def]) => def.operations.includes(operation) && (name !== 'format' || FORMAT_BY_OPERATION[operation]))
        .map(([name]) => name)
        .sort();
      const get = doc.paths[`/v1/${operation}`].get;
      const post = doc.paths[`/v1/${operation}`].post;
      expect((get.parameters as Json[]).map((p) => p.name).sort()).toEqual(validated);
      expect(Object.keys(post.requestBody.content['application/json'].schema.properties).filter((n) => n !== 'access_key').sort()).toEqual(validated);
      for (const p of get.parameters as Json[]) expect(p.description, `${operation} ${p.name}`).toMatch(/\w/);
    });

    it.each(OPERATIONS)('should give %s the ranges, enums and defaults the validation applies', (operation) => {
      const defaults = validateRenderParams(operation, base[operation]).params as unknown as Json;
      for (const p of doc.paths[`/v1/${operation}`].get.parameters as Json[]) {
        const schema = p.schema as Json;
        const numeric = (schema.anyOf as Json[] | undefined)?.find((s) => s.minimum !== undefined) ?? schema;
        if (numeric.minimum !== undefined) {
          expect(accepts(operation, p.name, numeric.minimum), `${p.name} = minimum`).toBe(true);
          expect(accepts(operation, p.name, numeric.minimum - 0.5), `${p.name} < minimum`).toBe(false);
        }
        if (numeric.maximum !== undefined) {
          expect(accepts(operation, p.name, numeric.maximum), `${p.name} = maximum`).toBe(true);
          expect(accepts(operation, p.name, numeric.maximum + 1), `${p.name} > maximum`).toBe(false);
        }
        const values = (schema.enum ?? schema.items?.enum) as string[] | undefined;
        if (values && p.name !== 'viewport_device') {
          for (const v of values) expect(accepts(operation, p.name, v), `${p.name}=${v}`).toBe(true);
          expect(accepts(operation, p.name, 'not-a-member')).toBe(false);
        }
        if (schema.default !== undefined) expect(defaults[p.name], `default of ${p.name}`).toEqual(schema.default);
      }
    });
  });

  describe('When a parameter is added to the validation schemas', () => {
    afterEach(() => {
      delete PARAMETERS.test_knob;
    });

    it('should appear in the document with its type, range, default and description', () => {
      PARAMETERS.test_knob = { operations: ['pdf'], schema: z.number().int().min(2).max(9), description: 'A knob for this test.', default: 3 };
      expect(operationParameters('pdf').test_knob).toEqual({ type: 'integer', minimum: 2, maximum: 9, description: 'A knob for this test.', default: 3 });
      const fresh = buildOpenApiDocument([{ method: 'GET', url: '/v1/pdf', usage: 'render' }]);
      expect((fresh.paths as Json)['/v1/pdf'].get.parameters).toContainEqual(
        expect.objectContaining({ name: 'test_knob', in: 'query', description: 'A knob for this test.', schema: { type: 'integer', minimum: 2, maximum: 9, default: 3 } }),
      );
      expect(operationParameters('screenshot').test_knob).toBeUndefined();
    });
  });

  describe('When the task body and the errors are looked for', () => {
    it('should describe every writable task field, the error body with every code, and a response per error status', () => {
      const body = doc.paths['/v1/tasks'].post.requestBody.content['application/json'].schema;
      expect(Object.keys(body.properties).sort()).toEqual([...Object.keys(TASK_FIELDS), 'access_key'].sort());
      expect(body.properties.timezone.default).toBe('Etc/UTC');
      expect(doc.components.schemas.Error.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
      for (const [code, spec] of Object.entries(ERROR_CODES)) {
        expect(doc.components.responses[`Error${spec.http}`].description).toContain(code);
        expect(doc.paths['/v1/screenshot'].post.responses[String(spec.http)]).toEqual({ $ref: `#/components/responses/Error${spec.http}` });
      }
      expect(doc.paths['/v1/screenshot'].post.responses['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AsyncAccepted' });
    });

    it('should type every task path\'s {id} as the integer a task\'s id is, so a generated client can pass the id it got', () => {
      expect(doc.components.schemas.Task.properties.id.type).toBe('integer');
      const taskPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/tasks/{id}'));
      expect(taskPaths.length).toBeGreaterThanOrEqual(3);
      for (const path of taskPaths) {
        for (const operation of Object.values(doc.paths[path]) as Json[]) {
          expect(operation.parameters.find((p: Json) => p.name === 'id').schema).toMatchObject({ type: 'integer', minimum: 1 });
        }
      }
      // A render's id stays a string.
      expect(doc.paths['/v1/renders/{id}'].get.parameters[0].schema.type).toBe('string');
    });

    it('should declare the key in a header or the query and the signatures', () => {
      expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['AccessKeyHeader', 'AccessKeyQuery', 'BodySignature', 'Signature']);
      expect(doc.paths['/v1/usage'].get.security).toEqual([{ AccessKeyHeader: [] }, { AccessKeyQuery: [] }]);
      expect(doc.paths['/healthz'].get.security).toEqual([]);
      expect(doc.paths['/v1/screenshot'].get.responses['200'].headers).toHaveProperty('X-RateLimit-Remaining');
      expect(doc.paths['/v1/screenshot'].get.responses['200'].headers).toHaveProperty('X-Service-Metadata-Title');
      expect(doc.components.responses.Error429.headers).toHaveProperty('Retry-After');
      expect(doc.components.headers['X-Service-Request-Id'].required).toBe(true);
      for (const [path, operations] of Object.entries(doc.paths as Json)) {
        for (const [method, operation] of Object.entries(operations as Json)) {
          for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
            const headers = (response as Json).$ref ? doc.components.responses[(response as Json).$ref.split('/').pop()].headers : (response as Json).headers;
            expect(headers, `${method} ${path} ${status}`).toHaveProperty('X-Service-Request-Id');
          }
        }
      }
    });
  });
});

describe('GET /docs', () => {
  describe('When the reference page and its assets are asked for', () => {
    it('should serve them from the service itself, pointing at the generated document', async () => {
      const page = await app.inject({ method: 'GET', url: '/docs/' });
      expect(page.statusCode).toBe(200);
      const html = page.body;
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) expect(asset, 'no CDN').not.toMatch(/^(https?:)?\/\//);
      for (const asset of assets.filter((a) => a.endsWith('.js') || a.endsWith('.css'))) {
        expect((await app.inject({ method: 'GET', url: new URL(asset, 'http://x/docs/').pathname })).statusCode, asset).toBe(200);
      }
      expect((await app.inject({ method: 'GET', url: '/docs/json' })).json()).toEqual(doc);
    });

    it('should serve the page under a Content-Security-Policy that runs only its own scripts', async () => {
      const page = await app.inject({ method: 'GET', url: '/docs/' });
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toMatch(/script-src 'self'( 'sha256-[^']+')* ?;/);
      expect(csp).toContain("object-src 'none'");
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(page.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });
  });
});
