import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '@app/errors';
import type { AccountSecrets, SecretInfo } from '../../application/account-secrets.js';

export interface SecretRoutesOptions {
  secrets: AccountSecrets;
  /** Where the routes are: /v1/secrets for the API; the dashboard serves them under its own prefix. */
  path?: string;
  /** The account asking; by default the one its admission admitted. */
  accountOf?: (request: FastifyRequest) => string;
  /** Admitted (rate limit) like reads and task changes; false: a dashboard session's calls. */
  admit?: boolean;
}

/** A secret as answered: its name and dates (unix seconds). The value is never answered. */
const view = (s: SecretInfo) => ({ name: s.name, created: Math.floor(s.createdMs / 1000), updated: Math.floor(s.updatedMs / 1000) });

/**
 * /v1/secrets: the account's secrets, typed into pages by a `type` step's `secret`. They count against
 * the rate limit only: never against the quota or the renders in flight.
 */
export async function secretRoutes(app: FastifyInstance, opts: SecretRoutesOptions) {
  const path = opts.path ?? '/v1/secrets';
  const accountOf = opts.accountOf ?? ((request: FastifyRequest) => request.admitted!.account.accountId);
  const admitted = (usage: 'read' | 'task_other'): { config: FastifyContextConfig } => ({ config: opts.admit === false ? {} : { usage } });
  const read = admitted('read');
  const change = admitted('task_other');

  app.post(path, change, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError([{ parameter: 'body', message: 'must be a JSON object {name, value}' }]);
    const unknown = Object.keys(body).filter((k) => k !== 'name' && k !== 'value' && k !== 'access_key');
    if (unknown.length > 0) throw new ValidationError(unknown.map((k) => ({ parameter: k, message: `${k} is not a field of a secret (name, value)` })));
    const { secret, created } = await opts.secrets.put(accountOf(request), body.name as string, body.value as string);
    return reply.status(201).send({ ...view(secret), replaced: !created });
  });

  app.get(path, read, async (request) => ({ secrets: (await opts.secrets.list(accountOf(request))).map(view) }));

  app.delete(`${path}/:name`, change, async (request, reply) => {
    await opts.secrets.remove(accountOf(request), (request.params as { name: string }).name);
    return reply.status(204).send();
  });
}
