import { ERROR_CODES, type ErrorCode } from './codes.js';
import { ERROR_DESCRIPTIONS } from './descriptions.js';

const WHAT_SERVICES_DO = {
  nak: 'tried again later (its Retry-After when it has one) while deliveries remain, then recorded as the outcome',
  ack: 'recorded as the outcome (a failed render, a failed run); done',
  term: 'recorded as the outcome; the message can never succeed and is not delivered again',
} as const;

/** docs/errors.md, generated from the error table and its descriptions (a unit test keeps the file in step). */
export function errorsDocument(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
    .sort((a, b) => ERROR_CODES[a].http - ERROR_CODES[b].http || a.localeCompare(b))
    .map((code) => {
      const { http, ack } = ERROR_CODES[code];
      const { meaning, retry } = ERROR_DESCRIPTIONS[code];
      return `| \`${code}\` | ${http} | ${meaning} | ${retry} | ${ack} |`;
    });
  return [
    '# Errors',
    '',
    '<!-- Generated from libs/errors (codes.ts, descriptions.ts): UPDATE_DOCS=1 npx vitest run --project unit libs/errors -->',
    '',
    'Every error answer has the body `{statusCode, error, message, code}` (plus `details` naming each bad',
    'parameter for `invalid_parameter`, and the parameter that asked for the failure for',
    '`host_returned_error` and `content_*_specified_string`, with `returned_status_code` or',
    '`matched_string`) and the header `X-Service-Request-Id`. Codes are stable: they are never renamed,',
    'and new ones are only added. `429` and `503` answers carry `Retry-After`; `500` answers never echo',
    'internals. A render that fails is never charged.',
    '',
    'The last column is what the services do with a queued message (a render job, a task run, a webhook',
    'delivery) whose handling failed with the code, read from the same table by every consumer:',
    '',
    ...(['nak', 'ack', 'term'] as const).map((policy) => `- \`${policy}\`: ${WHAT_SERVICES_DO[policy]}.`),
    '',
    'So a scheduled run that meets a rate limit or an outage waits it out and runs; one refused for its plan',
    'or quota fails at once, and its run records the code.',
    '',
    '| code | HTTP status | meaning | retry the same request? | queued work |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
