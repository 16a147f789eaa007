import { errors } from '@app/errors';
import type { OpenAccountState } from '../../domain/account/account.js';
import { hashKey } from '../../domain/account/keys.js';
import { hmacHex, signatureApplies, signaturesMatch, unsignedQuery } from '../../domain/account/signature.js';
import type { AccountDirectory, SecretBox } from '../ports.js';
import type { AdmitInput } from './types.js';

/** Who is asking: the account of an access key (or of a trusted internal caller's id), and its request's signature. */
export function authentication(deps: { directory: AccountDirectory; secrets: SecretBox }) {
  const { directory } = deps;

  const authenticate = async (accessKey: string): Promise<OpenAccountState> => {
    // A missing or unknown key touches no account: the lookup is by hash and nothing is counted.
    const account = accessKey ? await directory.byAccessKeyHash(hashKey(accessKey)) : undefined;
    if (!account) throw errors.accessKeyInvalid();
    return account;
  };

  const checkSignature = (account: OpenAccountState, input: AdmitInput) => {
    if (!account.signatureRequired || !signatureApplies(input.usage)) return;
    if (!input.signature && !input.bodySignature) throw errors.signatureRequired();
    const secret = deps.secrets.open(account.keys.sealedSecretKey);
    const queryOk = input.signature ? signaturesMatch(hmacHex(secret, unsignedQuery(input.signedQuery)), input.signature) : false;
    const bodyOk = input.bodySignature ? signaturesMatch(hmacHex(secret, input.body), input.bodySignature) : false;
    if (!queryOk && !bodyOk) throw errors.signatureInvalid();
  };

  /** The account a request is made for: an internal caller's by id, anyone else's by key and signature. */
  const accountOf = async (input: AdmitInput): Promise<OpenAccountState> => {
    if (input.accountId) {
      const found = await directory.byId(input.accountId);
      if (!found) throw errors.accessKeyInvalid();
      return found;
    }
    const account = await authenticate(input.accessKey);
    checkSignature(account, input);
    return account;
  };

  return { authenticate, accountOf };
}
