import type { IncomingMessage, ServerResponse } from 'node:http';

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
  };
}
