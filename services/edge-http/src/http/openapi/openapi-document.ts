import { z } from 'zod';
import { ERROR_CODES, reasonPhrase } from '@app/errors';
import { CONTENT_TYPE_BY_FORMAT, FORMAT_BY_OPERATION, OPERATIONS, PARAMETERS, RESULT_FORMATS, parameterDefaults, type Operation } from '@app/render-params';
import { webhookDocs } from './webhooks.js';
import { toJsonSchema, withoutSafeIntegerBounds, type Json } from './json-schema.js';
import { ROUTE_DOCS, type RouteDoc } from './route-docs.js';
import { AsyncAccepted, DeviceList, ErrorBody, Health, Readiness, RenderStatus, TaskList, Task, TaskChanges, TaskRun, TaskRuns, Usage } from './response-schemas.js';

/** A route of the server as Fastify registered it. */
export interface RouteInfo {
  method: string;
  /** Fastify's path: `/v1/tasks/:id`. */
  url: string;
  /** The route's `config.usage`: set on every route that needs the access key. */
  usage?: string | undefined;
}


/** The response bodies: every schema with a meta id (response-schemas.ts), each a component referred to by id. */
function componentSchemas(): Json {
  // Imported for their registration under their ids.
  void [ErrorBody, AsyncAccepted, RenderStatus, Usage, DeviceList, Task, TaskList, TaskRun, TaskRuns, TaskChanges, Health, Readiness];
  const { schemas } = z.toJSONSchema(z.globalRegistry, { io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Json>;
  };
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, withoutSafeIntegerBounds(schema)]));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const componentName = (schema: z.ZodType): string => (z.globalRegistry.get(schema)?.id as string | undefined) ?? 'Unknown';

/** Media types of a render's result, per operation: those of its output formats. */
const RESULT_TYPES: Record<string, string[]> = Object.fromEntries(
  OPERATIONS.map((op) => [op, RESULT_FORMATS[op].map((format) => CONTENT_TYPE_BY_FORMAT[format] ?? '*/*')]),
);

// ---------------------------------------------------------------------------------------------------
// Headers the service sends

/** `required`: sent on every response that refers to the header (the request id on all of them, the rate limit on keyed successes). */
const HEADERS: Record<string, { description: string; schema: Json; required?: boolean }> = {
  'X-Service-Request-Id': {
    description: "The request's trace id: quote it to find the request in logs and traces.",
    schema: { type: 'string' },
    required: true,
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute on the plan.', schema: { type: 'integer' }, required: true },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' }, required: true },
  'X-RateLimit-Reset': { description: 'Unix seconds when the minute window resets.', schema: { type: 'integer' }, required: true },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'X-Service-Cache': { description: 'With cache=true: HIT when answered from the cache, MISS when rendered.', schema: { type: 'string', enum: ['HIT', 'MISS'] } },
  'Content-Disposition': {
    description: 'inline, or attachment; filename="NAME.EXT" with attachment_name.',
    schema: { type: 'string' },
  },
  'Content-Security-Policy': {
    description: "sandbox, on a result that is markup a browser would run (a scrape's HTML): shown, but in an opaque origin with scripts and forms off.",
    schema: { type: 'string', enum: ['sandbox'] },
  },
  'X-Service-Metadata-Title': { description: 'With metadata_title: the page title, percent-encoded UTF-8.', schema: { type: 'string' } },
  'X-Service-Metadata-Icon': { description: 'With metadata_icon: absolute URL of the page icon.', schema: { type: 'string' } },
  'X-Service-Metadata-Fonts': { description: 'With metadata_fonts: font families used, percent-encoded, comma-separated.', schema: { type: 'string' } },
  'X-Service-Metadata-Hash': { description: 'With metadata_hash: lowercase hex SHA-256 of the body.', schema: { type: 'string' } },
  'X-Service-Metadata-Status': { description: "With metadata_status: the page's HTTP status.", schema: { type: 'string' } },
  'X-Service-Metadata-Headers': { description: "With metadata_headers: the page's response headers as a JSON object.", schema: { type: 'string' } },
  'X-Service-Metadata-Image-Size': { description: 'With metadata_image_size: WIDTHxHEIGHT of the image.', schema: { type: 'string' } },
};
const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const REQUEST_ID = ['X-Service-Request-Id'];
const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const METADATA = Object.keys(HEADERS).filter((h) => h.startsWith('X-Service-Metadata-'));

// ---------------------------------------------------------------------------------------------------
// Errors: one response per HTTP status of the error table, listing its codes

const errorStatuses = (): number[] => [...new Set(Object.values(ERROR_CODES).map((c) => c.http))].sort((a, b) => a - b);
const codesOf = (status: number) => Object.entries(ERROR_CODES).filter(([, c]) => c.http === status).map(([code]) => code);
const WITH_RETRY_AFTER: ReadonlySet<number> = new Set([423, 429, 503]);

function errorResponses(): Record<string, Json> {
  return Object.fromEntries(
    errorStatuses().map((status) => [
      `Error${status}`,
      {
        description: `${reasonPhrase(status)}: ${codesOf(status).join(', ')}.`,
        headers: headerRefs([...REQUEST_ID, ...(WITH_RETRY_AFTER.has(status) ? ['Retry-After'] : [])]),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
}

/** The error answers of a route: every status of the table for a keyed route; a public one can only miss or fail. */
function errorsFor(route: RouteInfo): Record<string, Json> {
  const statuses = route.usage ? errorStatuses() : errorStatuses().filter((s) => s === 404 || s >= 500);
  return Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));
}

// ---------------------------------------------------------------------------------------------------
// Render operations: parameters from the schemas that validate them

/** One parameter of an operation as JSON Schema: type and range from its validation schema, with description and default. */
function parameterSchema(operation: Operation, name: string, defaults: Record<string, unknown>): Json {
  const format = name === 'format' ? FORMAT_BY_OPERATION[operation] : undefined;
  const def = PARAMETERS[name]!;
  const json = toJsonSchema(format?.schema ?? def.schema);
  json.description = format?.description ?? def.description;
  if (defaults[name] !== undefined) json.default = defaults[name];
  return json;
}

/** Every parameter `operation` accepts, as validateRenderParams accepts it. */
export function operationParameters(operation: Operation): Record<string, Json> {
  const defaults = parameterDefaults(operation);
  const names = Object.entries(PARAMETERS)
    .filter(([name, def]) => def.operations.includes(operation) && (name !== 'format' || FORMAT_BY_OPERATION[operation]))
    .map(([name]) => name);
  return Object.fromEntries(names.map((name) => [name, parameterSchema(operation, name, defaults)]));
}

/** A list may also be sent as one string (comma-separated, or as its description says). */
const orOneString = (schema: Json): Json =>
  schema.type === 'array' ? { description: schema.description, default: schema.default, anyOf: [{ ...schema, description: undefined, default: undefined }, { type: 'string' }] } : schema;

const stripUndefined = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function renderOperation(operation: Operation, method: string, route: RouteInfo): Json {
  const params = operationParameters(operation);
  const needsUrl = !Object.hasOwn(params, 'html');
  const success = {
    description: `The ${operation} result.`,
    headers: headerRefs([...REQUEST_ID, ...RATE_LIMIT, 'Content-Disposition', 'Content-Security-Policy', 'X-Service-Cache', ...METADATA]),
    content: Object.fromEntries((RESULT_TYPES[operation] ?? ['*/*']).map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  };
  const accepted = {
    description: 'async=true: accepted; the result follows at GET /v1/renders/{id} and by webhook.',
    headers: headerRefs([...REQUEST_ID, ...RATE_LIMIT, 'X-Service-Cache']),
    content: { 'application/json': { schema: ref('AsyncAccepted') } },
  };
  const operationDoc: Json = {
    operationId: `${operation}${method === 'GET' ? 'Get' : 'Post'}`,
    tags: ['Render'],
    summary: `${operation[0]!.toUpperCase()}${operation.slice(1)} (${method})`,
    description:
      `Renders with the parameters ${method === 'GET' ? 'in the query string (lists repeated or comma-separated)' : 'of the JSON body'}. ` +
      `${needsUrl ? 'url is required.' : 'Give url or html.'} Accounts that require signatures sign these requests.`,
    security: RENDER_SECURITY,
    responses: { '200': success, '202': accepted, ...errorsFor(route) },
  };
  if (method === 'GET') {
    operationDoc.parameters = Object.entries(params).map(([name, schema]) => ({
      name,
      in: 'query',
      required: name === 'url' && needsUrl,
      description: schema.description,
      schema: { ...schema, description: undefined },
      ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
    }));
  } else {
    const properties = Object.fromEntries(Object.entries(params).map(([name, schema]) => [name, orOneString(schema)]));
    properties.access_key = { type: 'string', description: 'The access key, when it is not sent in X-Access-Key.' };
    operationDoc.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties,
            additionalProperties: false,
            ...(needsUrl ? { required: ['url'] } : { oneOf: [{ required: ['url'] }, { required: ['html'] }] }),
          },
        },
      },
    };
  }
  return operationDoc;
}

// ---------------------------------------------------------------------------------------------------
// The other routes

const KEY_SECURITY = [{ AccessKeyHeader: [] }, { AccessKeyQuery: [] }];
const RENDER_SECURITY = [...KEY_SECURITY, { AccessKeyHeader: [], Signature: [] }, { AccessKeyQuery: [], Signature: [] }, { AccessKeyHeader: [], BodySignature: [] }];

const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
/** Path parameters that are not strings: a task's id is the integer its `id` field holds. */
const PATH_PARAMETER_SCHEMAS: Record<string, Json> = {
  '/v1/tasks/{id}': { type: 'integer', minimum: 1, description: 'The task\'s id (its `id` field).' },
};
const pathParameters = (path: string) =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((m) => {
    const scope = path.slice(0, m.index + m[0].length);
    return { name: m[1]!, in: 'path', required: true, schema: PATH_PARAMETER_SCHEMAS[scope] ?? { type: 'string' } };
  });

function otherOperation(method: string, path: string, route: RouteInfo): Json {
  const doc: RouteDoc = ROUTE_DOCS[`${method} ${path}`] ?? {
    operationId: `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    tag: 'Service',
    summary: `${method} ${path}`,
  };
  const status = String(doc.status ?? 200);
  const headers = headerRefs([...REQUEST_ID, ...(route.usage ? RATE_LIMIT : [])]);
  const success: Json =
    status === '204'
      ? { description: 'Done; no body.', headers }
      : {
          description: doc.summary,
          headers,
          content: doc.body ? { 'application/json': { schema: ref(componentName(doc.body)) } } : { '*/*': { schema: {} } },
        };
  const responses: Json = { [status]: success, ...errorsFor(route) };
  if (path === '/readyz') {
    responses['503'] = { description: 'Not ready.', headers: headerRefs(REQUEST_ID), content: { 'application/json': { schema: ref('Readiness') } } };
  }
  const operation: Json = {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security: route.usage ? KEY_SECURITY : [],
    responses,
  };
  const parameters = [...pathParameters(path), ...(doc.query ?? [])];
  if (parameters.length > 0) operation.parameters = parameters;
  if (doc.request) operation.requestBody = doc.request;
  return operation;
}

// ---------------------------------------------------------------------------------------------------

const renderOperationOf = (route: RouteInfo): Operation | undefined => {
  const last = route.url.split('/').pop() as Operation;
  return route.usage === 'render' && (OPERATIONS as readonly string[]).includes(last) ? last : undefined;
};

/** The OpenAPI 3.1 document of the routes the server registered. */
export function buildOpenApiDocument(routes: readonly RouteInfo[], info: { version: string } = { version: '1.0.0' }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const method = route.method.toUpperCase();
    if (method === 'HEAD' || method === 'OPTIONS') continue;
    const path = openApiPath(route.url);
    const operation = renderOperationOf(route);
    (paths[path] ??= {})[method.toLowerCase()] = operation ? renderOperation(operation, method, route) : otherOperation(method, path, route);
  }
  const webhooks = webhookDocs();
  const schemas = componentSchemas();
  return stripUndefined({
    openapi: '3.1.0',
    info: {
      title: 'Render service API',
      version: info.version,
      description:
        'Screenshots, PDFs and scraped content of web pages, async renders with signed webhooks, and scheduled tasks. ' +
        'Every request but /healthz, /readyz, /openapi.json and result files needs the access key (X-Access-Key header, or access_key in the query or the JSON body). ' +
        'Accounts that require signatures sign the render requests: signature = lowercase hex HMAC-SHA256 of the query string (without signature), ' +
        'or X-Signature over the raw POST body, keyed with the secret key.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [
      { name: 'Render', description: 'Screenshots, PDFs, scraping, devices, async results.' },
      { name: 'Tasks', description: 'Scheduled renders (Scale plan).' },
      { name: 'Account', description: 'Quota and rate limit.' },
      { name: 'Service', description: 'Health and this description.' },
    ],
    paths,
    webhooks,
    components: {
      schemas,
      responses: errorResponses(),
      headers: HEADERS,
      securitySchemes: {
        AccessKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Access-Key', description: 'The access key (recommended).' },
        AccessKeyQuery: { type: 'apiKey', in: 'query', name: 'access_key', description: 'The access key in the query string (GET and DELETE).' },
        Signature: {
          type: 'apiKey',
          in: 'query',
          name: 'signature',
          description: 'Lowercase hex HMAC-SHA256 (secret key) of the query string as sent, without signature. Render routes of accounts that require signatures.',
        },
        BodySignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description: 'Lowercase hex HMAC-SHA256 (secret key) of the raw JSON body. Render routes of accounts that require signatures.',
        },
      },
    },
  });
}
