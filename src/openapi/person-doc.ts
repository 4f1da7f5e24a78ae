import { personData, personSchema } from '../people/person-responses.js';
import { listPeopleQuery, mergePeopleBody, updatePersonBody } from '../people/person-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const personArea: AreaDoc = {
  tag: 'people',
  description:
    'One record per correspondent (one or more addresses) above the per-mailbox contacts, made from them by the database. A caller ' +
    'sees a person through a contact in a mailbox whose mail they may read (owner, or a share with canRead), and only those addresses ' +
    'and mailboxes. The shared fields (the name staff gave, phone, title, tags, notes, company) are shown only through mail the ' +
    'caller may read with the person: an address typed by hand or imported shows none of them. Someone who sees no address: 404',
  routes: [
    {
      method: 'get',
      path: '/api/people',
      operationId: 'listPeople',
      auth: 'user',
      summary: 'List the people the caller sees (filters: search, companyId, tag, includeColleagues)',
      description:
        'Newest correspondence first (lastEmailAt over the contacts the caller sees; people without mail last). Colleagues (an address ' +
        "of the installation's email accounts) only with includeColleagues=true. The total counts up to 1,000 people, " +
        'with or without a filter (totalExact false and total 1,000 beyond; paging goes on with hasNext). A companyId the caller does not see: 404. ' +
        'With a search, at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: listPeopleQuery,
      success: { status: 200, description: 'A page of people', body: 'list', item: personSchema },
      errors: [404, 429],
    },
    {
      method: 'get',
      path: '/api/people/:id',
      operationId: 'getPerson',
      auth: 'user',
      summary: 'One person',
      description: 'A person none of whose addresses is a contact of a mailbox the caller may read: 404 (their mail: GET /api/emails?personId=).',
      params: idParams,
      success: { status: 200, description: 'The person as the caller sees them', body: 'data', data: personData },
    },
    {
      method: 'patch',
      path: '/api/people/:id',
      operationId: 'updatePerson',
      auth: 'user',
      summary: "Change a person's name, phone, title, tags, notes or company",
      description:
        'Shared by everyone who sees the person. Needs owner, or editor with canRead, of a mailbox holding mail with the person: ' +
        'a viewer, or someone who only typed or imported their address, gets 403 email_account_forbidden; someone who does not see ' +
        'them 404. An empty or null field clears it (an empty name shows the contact name again); tags replace the list. ' +
        'companyId must be a company the caller sees (else 404). Audited (person.updated: the fields changed, never their text).',
      params: idParams,
      body: updatePersonBody,
      errors: [403, 404],
      success: { status: 200, description: 'The changed person', body: 'data', data: personData },
    },
    {
      method: 'post',
      path: '/api/people/:id/merge',
      operationId: 'mergePeople',
      auth: 'user',
      summary: 'Merge people into this one',
      description:
        "Every address of the sources becomes this person's; fields this one lacks are taken from the sources in order, tags are " +
        'joined, notes kept one below the other. The sources answer 404 afterwards. The caller needs the right of PATCH on this ' +
        'person and on every source (403 email_account_forbidden); an id they do not see, or one merged away meanwhile: 404 and ' +
        'nothing changes. Audited (person.merged: ids and the number of addresses moved).',
      params: idParams,
      body: mergePeopleBody,
      errors: [403, 404],
      success: { status: 200, description: 'The merged person', body: 'data', data: personData },
    },
  ],
};
