/** The client's error family; one file per kind under `errors/`. */
export * from './errors/api-errors.js';
export * from './errors/kyc-error.js';
export * from './errors/request-errors.js';
