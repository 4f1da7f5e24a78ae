/** The JMAP client's public surface: import from here rather than from the individual files. */
export * from './types.js';
export * from './errors.js';
export { fetchSession, validateMailCredentials } from './session.js';
export { JmapClient, responseFor } from './client.js';
export * from './mail.js';
export * from './blob.js';
export * from './submission.js';
