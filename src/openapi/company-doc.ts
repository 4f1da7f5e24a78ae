import { companyData, companySchema } from '../companies/company-responses.js';
import { listCompaniesQuery, updateCompanyBody } from '../companies/company-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const companyArea: AreaDoc = {
  tag: 'companies',
  description:
    "The organisations behind the correspondents' mail domains: one company per domain, made by the mail sync (and by a contact added by hand); " +
    "free-mail domains (gmail.com, azet.sk, seznam.cz, ...) and the staff's own domains are never companies. A caller sees a company when they " +
    'see at least one of its contacts (email accounts they own or that are shared with them), and its figures count only those contacts; ' +
    'a company they do not see is a 404',
  routes: [
    {
      method: 'get',
      path: '/api/companies',
      operationId: 'listCompanies',
      auth: 'user',
      summary: 'List the companies of the contacts the caller may see',
      description:
        'contactCount and lastEmailAt count only the contacts of email accounts the caller may see. The total is exact.' +
        ' With a search, at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: listCompaniesQuery,
      success: { status: 200, description: 'A page of companies', body: 'list', item: companySchema },
      errors: [429],
    },
    {
      method: 'get',
      path: '/api/companies/:id',
      operationId: 'getCompany',
      auth: 'user',
      summary: 'One company',
      description: 'A company none of whose contacts the caller sees (or of an own domain): 404.',
      params: idParams,
      success: { status: 200, description: 'The company, with its figures over the contacts the caller sees', body: 'data', data: companyData },
    },
    {
      method: 'patch',
      path: '/api/companies/:id',
      operationId: 'updateCompany',
      auth: 'user',
      summary: "Change a company's name, notes, IČO, IČ DPH, address, phone or web",
      description:
        'A user who is owner or editor with canRead of an email account showing one of its contacts may change it; everyone who sees it ' +
        'sees the change. An empty name shows the domain again; an empty or null field clears it. registrationNumber: 8 digits with a ' +
        'valid check digit; vatId: an EU prefix and the number; website: http(s). Audited (company.updated). A company the caller does ' +
        'not see: 404; one they see only through viewer shares or accounts without canRead: 403 email_account_forbidden.',
      params: idParams,
      body: updateCompanyBody,
      errors: [403, 404],
      success: { status: 200, description: 'The changed company', body: 'data', data: companyData },
    },
  ],
};
