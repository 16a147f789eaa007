import type { IncomingMessage, ServerResponse } from 'node:http';
import { until } from './until.js';

/**
 * A fixture route whose responses wait until the test releases them: a way to keep renders in flight
 * for as long as a test needs (then every later request answers at once).
 */
export function holdRoute() {
  let released = false;
  const waiting: ServerResponse[] = [];
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><body style="margin:0;background:#00ff00"><p>released</p></body></html>');
  };
  return {
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      if (released) answer(res);
      else waiting.push(res);
    },
    get waiting() {
      return waiting.length;
    },
    release() {
      released = true;
      for (const res of waiting.splice(0)) if (!res.destroyed) answer(res);
    },
    reset() {
      released = false;
    },
    /**
     * Waits until `n` requests wait here, while `answers` (the calls that should be held) are pending: one
     * answered before the release fails the wait at once, with what it was answered.
     */
    async untilHeld(answers: Promise<{ status: number; body: Buffer }>[], n: number, timeoutMs = 60_000): Promise<void> {
      const early: string[] = [];
      for (const a of answers) void a.then((res) => early.push(`${res.status} ${res.body.toString().slice(0, 200)}`), (err: unknown) => early.push(String(err)));
      await until(
        () => {
          if (early.length > 0) throw new Error(`answered while the page held it: ${early.join('; ')}`);
          return waiting.length === n;
        },
        timeoutMs,
        `${n} requests held (${waiting.length} now)`,
      );
    },
  };
}
