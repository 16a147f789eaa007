import { AppError } from '@app/errors';
import type { ResultFiles, StoredFile } from './ports.js';
import type { Clock } from '../application/ports.js';

/** Names handed out as file URLs: 256 random bits, base64url. Anything else is not a file. */
const FILE_NAME = /^[A-Za-z0-9_-]{43}$/;

const notFound = () => new AppError('file_not_found', 'No such file, or it has expired.');

/** GET /v1/files/{name}: a kept result, without the key, until it expires; 404 after. */
export function openResultFile(deps: { files: ResultFiles; clock: Clock }) {
  return async (name: string): Promise<{ file: StoredFile; body: ReadableStream<Uint8Array> }> => {
    if (!FILE_NAME.test(name)) throw notFound();
    const file = await deps.files.info(name);
    if (!file || file.kind !== 'file' || file.expiresUnixMs <= deps.clock.now().getTime()) throw notFound();
    const body = await deps.files.stream(name);
    if (!body) throw notFound();
    return { file, body };
  };
}

export type OpenResultFile = ReturnType<typeof openResultFile>;
