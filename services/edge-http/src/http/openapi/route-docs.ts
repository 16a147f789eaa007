import type { z } from 'zod';
import { TASK_FIELDS, TASK_REQUIRED_FIELDS } from '../../tasks/index.js';
import { toJsonSchema, type Json } from './json-schema.js';
import { DeviceList, Health, Readiness, RenderStatus, RunChange, Secret, SecretList, Task, TaskChanges, TaskList, TaskRun, TaskRuns, Usage } from './response-schemas.js';

/** What the document says of a route that is not a render (renders are described from their parameters). */
export interface RouteDoc {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  status?: number;
  body?: z.ZodType;
  /** A JSON request body. */
  request?: Json;
  /** Query parameters. */
  query?: Json[];
}

const taskBody = (requireCreateFields: boolean): Json => {
  const properties: Record<string, Json> = Object.fromEntries(Object.entries(TASK_FIELDS).map(([name, schema]) => [name, toJsonSchema(schema)]));
  properties.access_key = { type: 'string', description: 'The access key, when it is not sent in X-Access-Key.' };
  return {
    required: true,
    content: {
      'application/json': {
        schema: { type: 'object', properties, additionalProperties: false, ...(requireCreateFields ? { required: [...TASK_REQUIRED_FIELDS] } : {}) },
      },
    },
  };
};

const SECRET_BODY: Json = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['name', 'value'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'What a type step names in its secret field.' },
          value: { type: 'string', minLength: 1, maxLength: 4096, description: 'The secret (a password): sealed at rest, typed into pages, never answered.' },
          access_key: { type: 'string', description: 'The access key, when it is not sent in X-Access-Key.' },
        },
      },
    },
  },
};

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  'POST /v1/secrets': {
    operationId: 'putSecret',
    tag: 'Account',
    summary: 'Create or replace an account secret',
    description: 'A value a type step types by name (steps[i].secret), sealed at rest; answers its name and dates, never the value. Counts against the rate limit only.',
    status: 201,
    body: Secret,
    request: SECRET_BODY,
  },
  'GET /v1/secrets': { operationId: 'listSecrets', tag: 'Account', summary: "The account's secrets: names and dates only", body: SecretList },
  'DELETE /v1/secrets/{name}': {
    operationId: 'deleteSecret',
    tag: 'Account',
    summary: 'Delete an account secret (404 secret_not_found when there is none of that name)',
    description: 'A task whose steps type it fails its next run with secret_not_found naming the step.',
    status: 204,
  },
  'GET /healthz': { operationId: 'health', tag: 'Service', summary: 'Liveness (200 while the process answers)', body: Health },
  'GET /readyz': {
    operationId: 'readiness',
    tag: 'Service',
    summary: 'Readiness: 200 when NATS, auth-quota and the scheduler answer, 503 naming those that do not',
    body: Readiness,
  },
  'GET /openapi.json': { operationId: 'openapi', tag: 'Service', summary: 'This document (OpenAPI 3.1)' },
  'GET /v1/usage': { operationId: 'usage', tag: 'Account', summary: "The account's quota and rate limit", body: Usage },
  'GET /v1/devices': {
    operationId: 'devices',
    tag: 'Render',
    summary: 'Devices viewport_device accepts',
    description: 'Each device with the viewport it sets, in parameter names and in ScreenshotMAX\'s fields (id, userAgent, viewport).',
    body: DeviceList,
  },
  'GET /v1/renders/{id}': { operationId: 'renderStatus', tag: 'Render', summary: 'Status of an async render', body: RenderStatus },
  'GET /v1/files/{name}': {
    operationId: 'resultFile',
    tag: 'Render',
    summary: 'A kept result file',
    description: 'Public by its unguessable name (no key) until it expires. A scraped page is served with Content-Security-Policy: sandbox.',
  },
  'POST /v1/tasks': { operationId: 'createTask', tag: 'Tasks', summary: 'Create a scheduled task (Scale plan)', status: 201, body: Task, request: taskBody(true) },
  'GET /v1/tasks': { operationId: 'listTasks', tag: 'Tasks', summary: 'List the scheduled tasks', body: TaskList },
  'GET /v1/tasks/{id}': { operationId: 'getTask', tag: 'Tasks', summary: 'One scheduled task', body: Task },
  'PATCH /v1/tasks/{id}': {
    operationId: 'updateTask',
    tag: 'Tasks',
    summary: 'Change a task (any subset of its fields; enable or disable it)',
    body: Task,
    request: taskBody(false),
  },
  'DELETE /v1/tasks/{id}': { operationId: 'deleteTask', tag: 'Tasks', summary: 'Delete a task', status: 204 },
  'GET /v1/tasks/{id}/runs': { operationId: 'taskRuns', tag: 'Tasks', summary: 'Run history of a task', body: TaskRuns },
  'POST /v1/tasks/{id}/runs': {
    operationId: 'runTask',
    tag: 'Tasks',
    summary: 'Run a task now, outside its schedule',
    description:
      'One run of the task at once, enabled or not, admitted and charged like any run. Answers 202 with the run (running); its outcome, ' +
      'file, change and webhook come as for a scheduled run. A refusal (quota, rate limit, a target the SSRF policy refuses) is the answer, and no run is recorded.',
    status: 202,
    body: TaskRun,
  },
  'GET /v1/tasks/{id}/changes': {
    operationId: 'taskChanges',
    tag: 'Tasks',
    summary: 'Changes a monitoring task found',
    description: 'The runs whose comparison with the previous successful run found a change, newest first, with before, after and diff file URLs.',
    body: TaskChanges,
  },
  'GET /v1/tasks/{id}/compare': {
    operationId: 'compareTaskRuns',
    tag: 'Tasks',
    summary: 'Compare two kept runs of a monitoring task',
    description:
      "Any two of the task's kept runs (the last monitor.keep compared runs: baseline, unchanged or changed) compared as the monitor compares a run " +
      'with the one before: the answer has the shape of a run\'s change, `changed` when the score reaches the threshold, else `unchanged`, with before, after ' +
      'and diff file URLs (the diff only when the two differ; kept 24 hours). 400 invalid_parameter naming from or to for a missing or malformed run id; ' +
      '404 run_not_found naming from or to for a run that is not kept (unknown, failed, older than keep, its file expired).',
    body: RunChange,
    query: [
      { name: 'from', in: 'query', required: true, schema: { type: 'string' }, description: 'The earlier run (shown as before): a run id as GET /v1/tasks/{id}/runs lists them.' },
      { name: 'to', in: 'query', required: true, schema: { type: 'string' }, description: 'The later run (shown as after).' },
    ],
  },
};

