/** The edge's HTTP module: the public API's server and its routes. Its only face. */
export { buildServer, type HttpDeps } from './build-server.js';
