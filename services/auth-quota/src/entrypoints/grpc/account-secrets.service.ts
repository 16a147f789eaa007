import { unaryHandler } from '@app/rpc';
import type { Logger } from '@app/logging';
import type { AccountSecretsServiceServer, SecretInfo as SecretInfoMessage } from '@app/proto/authquota/secrets';
import type { AccountSecrets, SecretInfo } from '../../application/secrets/account-secrets.js';
import type { TaskSessions } from '../../application/sessions/task-sessions.js';

const toMessage = (s: SecretInfo): SecretInfoMessage => ({ name: s.name, created_unix_ms: s.createdMs, updated_unix_ms: s.updatedMs });

/** The AccountSecretsService gRPC server: translates messages, nothing else (values and sessions are never logged). */
export function accountSecretsService(deps: { secrets: AccountSecrets; sessions: TaskSessions; logger: Logger }): AccountSecretsServiceServer {
  const s = deps.secrets;
  const sessions = deps.sessions;
  const h = <Req, Res>(fn: (req: Req) => Promise<Res> | Res) => unaryHandler<Req, Res>(async (req) => fn(req), deps.logger);
  return {
    putSecret: h(async (req) => {
      const { secret, created } = await s.put(req.account_id, req.name, req.value);
      return { secret: toMessage(secret), created };
    }),
    listSecrets: h(async (req) => ({ secrets: (await s.list(req.account_id)).map(toMessage) })),
    deleteSecret: h(async (req) => {
      await s.remove(req.account_id, req.name);
      return {};
    }),
    revealSecrets: h(async (req) => ({
      secrets: [...(await s.reveal(req.account_id, req.names))].map(([name, value]) => ({ name, value })),
    })),
    readTaskSession: h(async (req) => ({ session: await sessions.read(req.account_id, req.task_id) })),
    keepTaskSession: h(async (req) => {
      await sessions.keep(req.account_id, req.task_id, req.session);
      return {};
    }),
    forgetTaskSession: h(async (req) => {
      await sessions.forget(req.account_id, req.task_id);
      return {};
    }),
  };
}
