import type { PersonRecord } from './person-records.js';
import type { PersonResponse } from './person-responses.js';

/** The person of API responses. */
export function presentPerson(person: PersonRecord): PersonResponse {
  return {
    id: person.id,
    name: person.name,
    emails: person.emails,
    company: person.company,
    phone: person.phone,
    title: person.title,
    tags: person.tags,
    notes: person.notes,
    lastEmailAt: person.lastEmailAt,
    emailAccountIds: person.emailAccountIds,
    colleague: person.colleague,
  };
}
