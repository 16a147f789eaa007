import { AppError } from '@app/errors';
import type { ExpectedVersion } from './event-store.js';

const describeExpected = (expected: ExpectedVersion): string =>
  expected === 'no_stream' || expected === 0
    ? 'no stream'
    : expected === 'stream_exists'
      ? 'an existing stream'
      : `version ${expected}`;

/** The errors an append fails with; `concurrency_conflict` is the one worth retrying (re-read, re-decide). */
export const appendErrors = {
  concurrencyConflict: (streamId: string, expected: ExpectedVersion, actual?: number) =>
    new AppError(
      'concurrency_conflict',
      `Stream ${streamId} ${actual === undefined ? 'changed concurrently' : `is at version ${actual}`}; ` +
        `the append expected ${describeExpected(expected)}.`,
    ),
  eventIdsReused: (streamId: string) =>
    new AppError(
      'conflict',
      `The append to ${streamId} reuses event ids that are already committed elsewhere or only in part; ` +
        'a retried append must resend all its events with the same expected version.',
    ),
  invalidAppend: (parameter: string, message: string) =>
    new AppError('invalid_parameter', `${parameter}: ${message}`, { details: [{ parameter, message }] }),
};
