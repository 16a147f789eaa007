import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';

/**
 * Errors of a bus that is not there for a moment, rather than of a bad request: the connection is down or
 * reconnecting, a request found no responder or timed out, or, on a cluster, a stream or the JetStream
 * meta group is electing a leader (its API answers no responders, which the client reports as
 * JetStreamNotEnabled, or 503 "JetStream system temporarily unavailable").
 */
const TRANSIENT = new Set([
  'TimeoutError',
  'NoRespondersError',
  'ClosedConnectionError',
  'DrainingConnectionError',
  'ConnectionError',
  'RequestError',
  'JetStreamNotEnabled',
]);

/** True when `err` (or what caused it) says the bus is unavailable for now: answer 503 and let the caller retry. */
export function isBusUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  if (TRANSIENT.has(err.name)) return true;
  if (err instanceof JetStreamApiError && err.status === 503) return true;
  return isBusUnavailable(err.cause, depth + 1);
}

/**
 * True when `err` says a core request reached nobody: no subscription on its subject, as far as the server
 * that answered knows (the client names it NoRespondersError, or marks a RequestError so).
 */
export function isNoResponders(err: unknown): boolean {
  const e = err as (Error & { isNoResponders?: () => boolean }) | undefined;
  return e?.name === 'NoRespondersError' || e?.isNoResponders?.() === true;
}

/** JetStream's codes when a conditional write named a revision the entry has moved past (a KV compare-and-set lost). */
const WRONG_REVISION: ReadonlySet<number> = new Set([JetStreamApiCodes.StreamWrongLastSequence, JetStreamApiCodes.StreamWrongLastSequenceUnknown]);

/** True when `err` says a compare-and-set write lost to another writer: read again and decide again. */
export function isWrongRevision(err: unknown): boolean {
  return err instanceof JetStreamApiError && WRONG_REVISION.has(err.code);
}

/** JetStream's codes when the stream or consumer asked about does not exist (or not on the server that answered yet). */
const NOT_FOUND: ReadonlySet<number> = new Set([JetStreamApiCodes.StreamNotFound, JetStreamApiCodes.ConsumerNotFound]);

/** True when `err` says the stream or consumer (a KV bucket's stream included) does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && NOT_FOUND.has(err.code);
}
