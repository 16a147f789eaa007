import { unaryHandler } from '@app/rpc';
import type { Logger } from '@app/logging';
import type { AccountSecretsServiceServer, SecretInfo as SecretInfoMessage } from '@app/proto/authquota/secrets';
import type { AccountSecrets, SecretInfo } from '../../application/secrets/account-secrets.js';

const toMessage = (s: SecretInfo): SecretInfoMessage => ({ name: s.name, created_unix_ms: s.createdMs, updated_unix_ms: s.updatedMs });

/** The AccountSecretsService gRPC server: translates messages, nothing else (values are never logged). */
export function accountSecretsService(deps: { secrets: AccountSecrets; logger: Logger }): AccountSecretsServiceServer {
  const s = deps.secrets;
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
  };
}
