import { createContactBody, listContactsQuery, updateContactBody } from '../contacts/contact-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const contactArea: AreaDoc = {
  tag: 'contacts',
  description:
    "The contacts of the caller's email accounts and of those shared with them (filled by the mail sync, or added by hand); " +
    'an id of an account not shared with the caller is a 404; changes need the owner or editor role (else 403 email_account_forbidden)',
  routes: [
    {
      method: 'get',
      path: '/api/contacts',
      auth: 'user',
      summary: 'List the contacts of own and shared email accounts',
      query: listContactsQuery,
      success: { status: 200, description: 'A page of contacts', body: 'list' },
    },
    {
      method: 'post',
      path: '/api/contacts',
      auth: 'user',
      summary: 'Add a contact by hand',
      body: createContactBody,
      success: { status: 201, description: 'data = the contact', body: 'data' },
      errors: [403, 404, 409],
    },
    {
      method: 'get',
      path: '/api/contacts/:id',
      auth: 'user',
      summary: 'One contact',
      params: idParams,
      success: { status: 200, description: 'data = the contact', body: 'data' },
    },
    {
      method: 'patch',
      path: '/api/contacts/:id',
      auth: 'user',
      summary: "Change a contact's name or notes",
      params: idParams,
      body: updateContactBody,
      success: { status: 200, description: 'data = the contact', body: 'data' },
      errors: [403],
    },
    {
      method: 'delete',
      path: '/api/contacts/:id',
      auth: 'user',
      summary: 'Delete a contact (and its emails); the sync does not re-create it',
      params: idParams,
      success: { status: 200, description: 'data = { id, deletedEmails }', body: 'data' },
      errors: [403],
    },
  ],
};
