import { AppError } from '@app/errors';
import type { BrowserStep } from '@app/proto/render';
import { secretNamesOf } from '@app/render-params';
import type { SecretSource } from './ports.js';

/**
 * The values of the secrets a render's `type` steps name, from the account's secrets. A name the
 * account does not have (never created, or deleted since a task was saved) fails the render before it
 * starts: 404 secret_not_found naming the first step that types it.
 */
export async function secretsOfSteps(steps: readonly BrowserStep[], accountId: string, source: SecretSource | undefined): Promise<Map<string, string>> {
  const names = secretNamesOf(steps);
  if (names.length === 0) return new Map();
  const values = source ? await source.reveal(accountId, names) : new Map<string, string>();
  const index = steps.findIndex((s) => s.secret !== undefined && !values.has(s.secret));
  if (index >= 0) {
    const name = steps[index]!.secret!;
    throw new AppError('secret_not_found', `steps[${index}].secret: the account has no secret named ${JSON.stringify(name)}.`, {
      details: [{ parameter: `steps[${index}].secret`, message: `no secret named ${JSON.stringify(name)}` }],
    });
  }
  return values;
}
