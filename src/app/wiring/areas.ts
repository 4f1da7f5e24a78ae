import { lazyModule } from './lazy-module.js';

type People = typeof import('./people.js');
type Accounts = typeof import('./email-accounts.js');
type Records = typeof import('./records.js');
type Mail = typeof import('./mail.js');
type Operations = typeof import('./operations.js');

/*
 * Each area's wiring module is loaded the first time one of its parts is built (ADR 0124). An area
 * imports its services, and they their libraries and helpers: importing all of them statically made
 * every crm-admin command load ~210 modules (the sync, JMAP, sending, backup...) to list users.
 * The long-running service loads them all at start (loadEveryLazyModule, src/app/context.ts).
 */
const area = <T>(file: string) => lazyModule<T>(import.meta.url, file);

export const wiring = {
  people: area<People>('./people.js'),
  accounts: area<Accounts>('./email-accounts.js'),
  records: area<Records>('./records.js'),
  mail: area<Mail>('./mail.js'),
  operations: area<Operations>('./operations.js'),
};
