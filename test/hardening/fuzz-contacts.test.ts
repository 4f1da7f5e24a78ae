import { describeFuzz, type SuiteRoute } from './support/fuzz.js';

const routes: SuiteRoute[] = [
  { method: 'GET', path: '/api/contacts', queryKeys: ['page', 'limit', 'emailAccountId', 'search', 'sort'], runs: 300, expectAccepted: true },
  {
    method: 'POST',
    path: '/api/contacts',
    validBody: (w) => ({ emailAccountId: w.owner.account.id, email: 'novy.kontakt@partner.test', name: 'Nový', notes: 'Poznámka' }),
    runs: 250,
    expectAccepted: true,
  },
  { method: 'GET', path: '/api/contacts/:id', recordOf: (a) => a.contact.id, runs: 200, expectAccepted: true },
  { method: 'PATCH', path: '/api/contacts/:id', recordOf: (a) => a.contact.id, validBody: () => ({ name: 'Premenovaný', notes: null }), runs: 250, expectAccepted: true },
  // Last: a successful delete removes what the routes above work with.
  { method: 'DELETE', path: '/api/contacts/:id', recordOf: (a) => a.contact.id, runs: 150 },
];

describeFuzz('hardening: fuzzing /api/contacts', routes);
