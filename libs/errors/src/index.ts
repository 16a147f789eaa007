export * from './codes.js';
export * from './app-error.js';
export * from './http.js';
