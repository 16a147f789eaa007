import type { IncomingMessage } from 'node:http';
import type { Admitted } from '../application/ports.js';

/**
 * A request the edge began to answer beneath Fastify (a possible cache hit, http/known-hits.ts) and
 * handed to Fastify after all: the body it read, which Fastify's parser is given again, and the
 * admission it made already (a rate lease's unit is spent once), which the admission hook takes as is.
 */
export interface HandedOver {
  body: Buffer;
  admitted?: Admitted;
}

const handed = new WeakMap<IncomingMessage, HandedOver>();

export const handOver = (req: IncomingMessage, what: HandedOver): void => void handed.set(req, what);

export const handedOver = (req: IncomingMessage): HandedOver | undefined => handed.get(req);
