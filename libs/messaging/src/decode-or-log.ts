import type { JsMsg } from '@nats-io/jetstream';

/** A logger method as pino and the services' loggers have it. */
export type Log = (obj: object, msg?: string) => void;

/**
 * A message's body decoded by its proto codec, or undefined once it is logged as undecodable: such a
 * message can never be handled, so the caller drops it (term) instead of retrying it.
 */
export function decodeOrLog<T>(msg: Pick<JsMsg, 'data' | 'subject'>, decode: (data: Uint8Array) => T, logger: { error: Log }, what: string): T | undefined {
  try {
    return decode(msg.data);
  } catch (err) {
    logger.error({ err, subject: msg.subject }, `undecodable ${what}: dropped`);
    return undefined;
  }
}
