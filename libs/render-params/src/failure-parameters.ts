import { z } from 'zod';
import type { ParameterProblem } from '@app/errors';
import { listParam, stringParam } from './coerce.js';
import type { Operation } from './parameters.js';

const ALL: Operation[] = ['screenshot', 'pdf', 'scrape', 'screencast'];

/** At most this many strings in fail_if_content_contains and in fail_if_content_missing. */
export const MAX_CONTENT_CHECKS = 20;

const STATUS_ITEM = /^(\d{3})(?:\s*-\s*(\d{3}))?$/;

/** `404` or `500-599`, kept as written without spaces; a range from its lower to its higher status. */
const statusItem = z
  .preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string({ error: 'must be status codes or ranges such as 404 or "500-599"' }))
  .superRefine((v, ctx) => {
    const m = STATUS_ITEM.exec(v);
    const [from, to] = m ? [Number(m[1]), Number(m[2] ?? m[1])] : [Number.NaN, Number.NaN];
    if (!m || from < 100 || to > 599) ctx.addIssue({ code: 'custom', message: 'must be status codes from 100 to 599 or ranges such as 404 or "500-599"' });
    else if (from > to) ctx.addIssue({ code: 'custom', message: `${v}: a range must not end before it starts` });
  })
  .transform((v) => v.replace(/\s+/g, ''));

/** Whether `status` is one of fail_on_status's codes or in one of its ranges. */
export function statusMatches(status: number, list: readonly string[]): boolean {
  return list.some((item) => {
    const [from, to = from] = item.split('-').map(Number);
    return status >= from! && status <= to!;
  });
}

const contentStrings = listParam(stringParam({ max: 1_000 }), (s) => [s], { maxItems: MAX_CONTENT_CHECKS });

/** Parameters that turn a page the caller does not want into an error (never charged) instead of a result. */
export const FAILURE_PARAMETERS = {
  fail_on_status: {
    operations: ALL,
    schema: z.preprocess((v) => (typeof v === 'number' ? [v] : v), listParam(statusItem as unknown as z.ZodType<string>, ',', { maxItems: 50 })),
    description:
      "Status codes and ranges (such as 404 or \"500-599\"; a list or one comma-separated string): when the page's main document answers one of them, the render fails with 500 host_returned_error, details[0].returned_status_code being the status, and is not charged. Needs url.",
  },
  fail_if_content_contains: {
    operations: ALL,
    schema: contentStrings,
    description: `Strings (at most ${MAX_CONTENT_CHECKS}, matched case-insensitively against the page's visible text once it is ready): when one is found, the render fails with 500 content_contains_specified_string, details[0].matched_string naming it, and is not charged. A list; one string is one item.`,
  },
  fail_if_content_missing: {
    operations: ALL,
    schema: contentStrings,
    description: `Strings (at most ${MAX_CONTENT_CHECKS}, matched case-insensitively against the page's visible text once it is ready): when one is not found, the render fails with 500 content_missing_specified_string, details[0].matched_string naming it, and is not charged. A list; one string is one item.`,
  },
};

/** Combinations refused: a page given as html has no status to check. */
export function failureParameterProblems(values: Record<string, unknown>): ParameterProblem[] {
  return values.fail_on_status !== undefined && values.url === undefined
    ? [{ parameter: 'fail_on_status', message: 'fail_on_status needs url (a page given as html has no status)' }]
    : [];
}
