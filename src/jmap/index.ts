/** The JMAP client's public surface: import from here rather than from the individual files. */
export * from './types.js';
export * from './errors.js';
export { fetchSession, parseSession, resolveSessionUrl, validateMailCredentials } from './session.js';
export { JmapClient, chunk, responseFor, type JmapClientOptions } from './client.js';
export * from './mail.js';
export type { FetchImpl } from './http.js';
export * from './blob.js';
export * from './submission.js';
