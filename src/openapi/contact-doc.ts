import { createContactBody, listContactsQuery, updateContactBody } from '../contacts/contact-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const contactArea: AreaDoc = {
  tag: 'contacts',
  description: "The caller's contacts (filled by the mail sync, or added by hand); another user's id is a 404",
  routes: [
    {
      method: 'get',
      path: '/api/contacts',
      auth: 'user',
      summary: 'List own contacts',
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
      errors: [404, 409],
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
    },
    {
      method: 'delete',
      path: '/api/contacts/:id',
      auth: 'user',
      summary: 'Delete a contact (and its emails); the sync does not re-create it',
      params: idParams,
      success: { status: 200, description: 'data = { id, deletedEmails }', body: 'data' },
    },
  ],
};
