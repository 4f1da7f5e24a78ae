import { erasureData } from '../privacy/privacy-responses.js';
import { privacyRequestBody } from '../privacy/privacy-schemas.js';
import type { AreaDoc } from './route-doc.js';

export const privacyArea: AreaDoc = {
  tag: 'privacy',
  description:
    'Personal data of the people staff write with: an access request answered as one zip, and an erasure that no later ' +
    'sync undoes (admins only; the same operations as crm-admin privacy export|erase)',
  routes: [
    {
      method: 'post',
      path: '/api/admin/privacy/export',
      operationId: 'exportPersonalData',
      auth: 'admin',
      summary: 'Everything the CRM holds about an email address, as a zip',
      description:
        'Across every email account: the contacts of the address with their notes, every email it took part in (headers, ' +
        'text, attachment names and sizes), which accounts and users hold them and audit records naming it, as JSON Lines ' +
        'files with a README.txt and summary.json, from one consistent snapshot. Streamed: a failure after the first byte ' +
        'cuts the connection (never a short zip that looks whole). Audited as privacy.exported with the address hashed, ' +
        'committed before the first byte: an export whose record cannot be written is refused (503) with nothing sent. ' +
        'privacy.export_ended then records whether it completed or was cut off, with the bytes sent.',
      body: privacyRequestBody,
      success: { status: 200, description: 'The zip (Content-Disposition: attachment)', body: 'file', mediaTypes: ['application/zip'] },
      // An export counts toward EXPENSIVE_REQUESTS_PER_USER (issue 52 finding 13).
      errors: [429],
    },
    {
      method: 'post',
      path: '/api/admin/privacy/erase',
      operationId: 'erasePersonalData',
      auth: 'admin',
      summary: 'Erase an email address from every email account, for good',
      description:
        'Deletes its contacts, every email it took part in and their links, one transaction per email account, and records ' +
        'a suppression (a keyed hash of the address and the erasure time): no later sync, incremental, full or the first ' +
        'sync of a re-linked mailbox, stores that mail again; mail dated after the erasure is stored. The mail server is ' +
        'not touched. Repeating it is harmless. Audited as privacy.erased with the address hashed.',
      body: privacyRequestBody,
      success: { status: 200, description: 'What was deleted, per email account', body: 'data', data: erasureData },
    },
  ],
};
