import { AppError } from '@app/errors';

const invalid = (parameter: string, message: string) =>
  new AppError('invalid_parameter', `${parameter}: ${message}`, { details: [{ parameter, message }] });

/** Checks a non-negative integer option; `undefined` falls back to `fallback`. */
export function countOption<F extends number | undefined>(
  parameter: string,
  value: number | undefined,
  fallback: F,
): number | F {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(parameter, 'must be an integer ≥ 0');
  return value;
}
