export * from './codes.js';
export * from './app-error.js';
export * from './http.js';
export * from './dispositions.js';
export { ERROR_DESCRIPTIONS } from './descriptions.js';
export { errorsDocument } from './errors-doc.js';
