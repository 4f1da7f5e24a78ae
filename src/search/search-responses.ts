import { z } from 'zod';
import { companySchema } from '../companies/company-responses.js';
import { conversationSchema } from '../conversations/conversation-responses.js';
import { personSchema } from '../people/person-responses.js';

/** data of GET /api/search: each kind ranked, at most `limit` of each, only what the caller's lists would show. */
export const searchData = z
  .object({
    people: z.array(personSchema).meta({
      description: 'The people whose name, address or company holds every word (in any form), as GET /api/people?search= finds them, newest mail first',
    }),
    companies: z.array(companySchema).meta({ description: 'As GET /api/companies?search= finds them, newest mail first' }),
    conversations: z.array(conversationSchema).meta({
      description: 'As GET /api/conversations?search=&status=all finds them (subject, participants, text, attachment names), latest activity first',
    }),
  })
  .meta({ id: 'SearchResults' });

export type SearchData = z.input<typeof searchData>;
