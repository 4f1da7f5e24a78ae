import { contactData, contactSchema, deletedContactData } from '../contacts/contact-responses.js';
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
      operationId: 'listContacts',
      auth: 'user',
      summary: 'List the contacts of own and shared email accounts',
      description: 'An emailAccountId filter that is not visible to the caller: 404.',
      query: listContactsQuery,
      success: { status: 200, description: 'A page of contacts', body: 'list', item: contactSchema },
      errors: [404],
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
