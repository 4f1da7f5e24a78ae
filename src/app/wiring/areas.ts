import { lazyModule } from './lazy-module.js';
import type * as peopleExports from './people.js';
import type * as emailAccountsExports from './email-accounts.js';
import type * as recordsExports from './records.js';
import type * as mailExports from './mail.js';
import type * as operationsExports from './operations.js';
import type * as composingExports from './composing.js';

/*
 * Each area's wiring module is loaded the first time one of its parts is built (ADR 0124). An area
 * imports its services, and they their libraries and helpers: importing all of them statically made
 * every crm-admin command load ~210 modules (the sync, JMAP, sending, backup...) to list users.
 * The long-running service loads them all at start (loadEveryLazyModule, src/app/context.ts).
 */
const area = <T>(file: string) => lazyModule<T>(import.meta.url, file);

export const wiring = {
  people: area<typeof peopleExports>('./people.js'),
  accounts: area<typeof emailAccountsExports>('./email-accounts.js'),
  records: area<typeof recordsExports>('./records.js'),
  mail: area<typeof mailExports>('./mail.js'),
  operations: area<typeof operationsExports>('./operations.js'),
  composing: area<typeof composingExports>('./composing.js'),
};
