import { z } from 'zod';
import { contactData, contactSchema, deletedContactData, importResultData } from '../contacts/contact-responses.js';
import { createContactBody, exportContactsQuery, importFieldsSchema, listContactsQuery, updateContactBody } from '../contacts/contact-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

/** The form the import route reads: its validated text fields plus the file part multer takes. */
const importForm = importFieldsSchema.extend({
  file: z.string().meta({ format: 'binary', description: 'CSV (UTF-8, comma or semicolon) or vCard 3.0/4.0, at most 5 MB and 10,000 contacts' }),
});

export const contactArea: AreaDoc = {
  tag: 'contacts',
  description:
    "The contacts of the caller's email accounts and of those shared with them (filled by the mail sync, or added by hand); " +
    'an id of an account not shared with the caller is a 404; changes need the owner or editor role (else 403 email_account_forbidden)',
  routes: [
    {
      method: 'get',
      path: '/api/contacts',
      operationId: 'listContacts',
      auth: 'user',
      summary: 'List the contacts of own and shared email accounts',
      description:
        'An emailAccountId filter that is not visible to the caller: 404. With a search, at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: listContactsQuery,
      success: { status: 200, description: 'A page of contacts', body: 'list', item: contactSchema },
      errors: [404, 429],
    },
    {
      method: 'post',
      path: '/api/contacts',
      operationId: 'createContact',
      auth: 'user',
      summary: 'Add a contact by hand',
      description: "emailAccountId not one of the caller's: 404. The same address in the same email account: 409.",
      body: createContactBody,
      success: { status: 201, description: 'The new contact', body: 'data', data: contactData },
      errors: [403, 404, 409],
    },
    {
      method: 'post',
      path: '/api/contacts/import',
      operationId: 'importContacts',
      auth: 'user',
      summary: 'Import an address book file (CSV or vCard) into a mailbox',
      description:
        'multipart: file, emailAccountId, dryRun. The format is told from the content: a vCard (3.0, 4.0; 2.1 with quoted-printable) starts with ' +
        'BEGIN:VCARD, anything else must be a CSV (UTF-8 with or without a byte order mark, separated by commas, semicolons or tabs, as the header ' +
        'line shows) whose header names an email column; the columns name, email, phone, company, title, tags, notes in any order, letter case and ' +
        'diacritics aside (Slovak names too: meno, telefón, firma, funkcia, štítky, poznámka); other columns are ignored. A cell starting with a ' +
        "quote before =, +, - or @ (the export's formula guard) loses the quote. The key is the mailbox and the address: a new address is created, " +
        'a known one changes only where the file has a value that differs (a blank cell clears nothing; tags are added). company names the ' +
        "address's company while it has no name; a named company, a free-mail or an own domain: a warning. Invalid rows are reported and left out; " +
        'the rest is stored in one transaction (all or nothing). dryRun=true answers the same counts and stores nothing. Owner or editor of the ' +
        'mailbox (viewer: 403, not shared: 404). A file that is neither format, empty, not UTF-8, over 5 MB or over 10,000 contacts: 400. ' +
        'Audited (contacts.imported, counts only). 409 when a contact of the file was added by hand during the import.',
      body: importForm,
      multipart: true,
      success: { status: 200, description: 'What was (or, for a dry run, would be) imported', body: 'data', data: importResultData },
      errors: [403, 404, 409],
    },
    {
      method: 'get',
      path: '/api/contacts/export',
      operationId: 'exportContacts',
      auth: 'user',
      summary: "Export a mailbox's contacts as CSV or vCard",
      description:
        'Any member of the mailbox (a viewer too); not shared: 404. format=csv (default): UTF-8 with a byte order mark, the header ' +
        'name,email,phone,company,title,tags,notes, CRLF, comma-separated or delimiter=semicolon (Excel in a Slovak locale); a cell starting ' +
        "with =, +, -, @, a tab or a carriage return gets a leading ' (OWASP CSV injection; the import removes it). format=vcf: vCard 3.0. " +
        'In name order; streamed (a failure after the first byte cuts the connection). Importing the file into the same mailbox changes ' +
        'nothing. Audited (contacts.exported, with the count).',
      query: exportContactsQuery,
      success: { status: 200, description: 'The file (Content-Disposition: attachment)', body: 'file', mediaTypes: ['text/csv', 'text/vcard'] },
      errors: [403, 404, 429],
    },
    {
      method: 'get',
      path: '/api/contacts/:id',
      operationId: 'getContact',
      auth: 'user',
      summary: 'One contact',
      params: idParams,
      success: { status: 200, description: 'The contact (with emailCount)', body: 'data', data: contactData },
    },
    {
      method: 'patch',
      path: '/api/contacts/:id',
      operationId: 'updateContact',
      auth: 'user',
      summary: "Change a contact's name or notes",
      params: idParams,
      body: updateContactBody,
      success: { status: 200, description: 'The changed contact', body: 'data', data: contactData },
      errors: [403],
    },
    {
      method: 'delete',
      path: '/api/contacts/:id',
      operationId: 'deleteContact',
      auth: 'user',
      summary: 'Delete a contact (and its emails); the sync does not re-create it',
      params: idParams,
      success: { status: 200, description: 'The id and how many emails went with it', body: 'data', data: deletedContactData },
      errors: [403],
    },
  ],
};
