import { CronExpressionParser } from 'cron-parser';

interface CronField {
  name: string;
  min: number;
  max: number;
}

/** The five fields of the specification, in order, with their ranges. */
export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 6 },
];

const ITEM = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/;

function fieldProblem(text: string, field: CronField): string | undefined {
  for (const item of text.split(',')) {
    const m = ITEM.exec(item);
    if (!m) return `the ${field.name} field "${text}" is not a value, a range (a-b), a list (a,b) or a step (*/n)`;
    const [, , from, to, step] = m;
    const values = [from, to].filter((v): v is string => v !== undefined).map(Number);
    for (const v of values) {
      if (v < field.min || v > field.max) return `the ${field.name} field allows ${field.min}-${field.max}, got ${v}`;
    }
    if (values.length === 2 && values[0]! > values[1]!) return `the range ${item} in the ${field.name} field goes backwards`;
    const span = field.max - field.min + 1;
    if (step !== undefined && (Number(step) < 1 || Number(step) > span)) {
      return `the step in the ${field.name} field must be between 1 and ${span}`;
    }
  }
  return undefined;
}

/**
 * Checks a five-field Unix cron expression against the specification: only digits, `*`, `,`, `-` and `/`,
 * each field within its range, and a date the expression can match. Returns the expression with single
 * spaces, or the problem as a sentence.
 */
export function parseCrontab(expression: string): { crontab: string } | { problem: string } {
  const fields = expression.trim().split(/\s+/);
  if (expression.trim() === '' || fields.length !== 5) {
    return { problem: 'crontab must have five fields separated by spaces: minute hour day-of-month month day-of-week' };
  }
  if (!/^[\d*,\-/\s]+$/.test(expression)) {
    return { problem: 'crontab may only contain digits and the characters * , - /' };
  }
  for (const [i, text] of fields.entries()) {
    const problem = fieldProblem(text, CRON_FIELDS[i]!);
    if (problem) return { problem: `crontab: ${problem}` };
  }
  const crontab = fields.join(' ');
  try {
    CronExpressionParser.parse(crontab, { tz: 'UTC' });
  } catch (err) {
    // e.g. `0 0 30 2 *`: every value is in range but no date has it.
    return { problem: `crontab never matches a date (${(err as Error).message})` };
  }
  return { crontab };
}
