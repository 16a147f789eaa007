import type { IncomingMessage, ServerResponse } from 'node:http';

/** A fixture route answering a small HTML page (margins off) with the body and extra CSS given. */
export const fixturePage = (body: string, style = '') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}${style}</style></head><body>${body}</body></html>`);
};
