import { describeFuzz, type SuiteRoute } from './support/fuzz.js';
import { sendFormBody } from './support/multipart.js';

const routes: SuiteRoute[] = [
  {
    method: 'GET',
    path: '/api/emails',
    queryKeys: ['page', 'limit', 'contactId', 'emailAccountId', 'unread', 'search', 'from', 'to'],
    runs: 350,
    expectAccepted: true,
  },
  { method: 'GET', path: '/api/emails/:id', recordOf: (a) => a.email.id, runs: 200, expectAccepted: true },
  { method: 'GET', path: '/api/emails/:id/thread', recordOf: (a) => a.email.id, queryKeys: ['page', 'limit'], runs: 200, expectAccepted: true },
  // The read write-back goes to the unreachable mail server of the fuzzing app: it stays pending, quickly.
  { method: 'PATCH', path: '/api/emails/:id', recordOf: (a) => a.email.id, validBody: () => ({ isRead: true }), runs: 250, expectAccepted: true },
  { method: 'POST', path: '/api/emails/contact/:contactId/read', recordOf: (a) => a.contact.id, runs: 200, expectAccepted: true },
  // Multipart sends (issue 26): fields and files in any order, hostile names; the mail server is unreachable.
  { method: 'POST', path: '/api/emails', bodies: sendFormBody, runs: 150, allowUpstream: true },
];

describeFuzz('hardening: fuzzing /api/emails', routes);
