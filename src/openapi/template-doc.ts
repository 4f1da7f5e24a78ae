import { renderedTemplateData, templateData, templateSchema } from '../templates/template-responses.js';
import { createTemplateBody, renderTemplateBody, updateTemplateBody } from '../templates/template-schemas.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const templateArea: AreaDoc = {
  tag: 'templates',
  description:
    'Email templates with placeholders {{contact.name}}, {{contact.firstName}}, {{contact.lastName}}, {{company.name}}, {{user.firstName}}, ' +
    '{{user.lastName}} (contact.firstName: the first word of the name, lastName the rest; user: the sender). An unknown placeholder is a 400 naming it ' +
    'when the template is saved. shared false: yours alone (anyone else: 404); shared true: every staff member lists, reads and uses it, but only its ' +
    'author or an admin changes or deletes it (others: 403). Created, changed and deleted templates are audited (email_template.*)',
  routes: [
    {
      method: 'get',
      path: '/api/templates',
      operationId: 'listTemplates',
      auth: 'user',
      summary: 'List your templates and the shared ones',
      description: 'By name (case-insensitive), then id.',
      query: paginationQuery,
      success: { status: 200, description: 'A page of templates', body: 'list', item: templateSchema },
    },
    {
      method: 'post',
      path: '/api/templates',
      operationId: 'createTemplate',
      auth: 'user',
      summary: 'Create a template',
      description: 'shared defaults to false. The HTML is cleaned by the sanitiser of email bodies when saved.',
      body: createTemplateBody,
      success: { status: 201, description: 'The template', body: 'data', data: templateData },
    },
    {
      method: 'get',
      path: '/api/templates/:id',
      operationId: 'getTemplate',
      auth: 'user',
      summary: 'One template',
      params: idParams,
      success: { status: 200, description: 'The template', body: 'data', data: templateData },
    },
    {
      method: 'patch',
      path: '/api/templates/:id',
      operationId: 'updateTemplate',
      auth: 'user',
      summary: 'Change a template (author or admin)',
      description: 'Only the fields given change; html null removes the HTML part.',
      params: idParams,
      body: updateTemplateBody,
      success: { status: 200, description: 'The template as it now stands', body: 'data', data: templateData },
      errors: [403],
    },
    {
      method: 'delete',
      path: '/api/templates/:id',
      operationId: 'deleteTemplate',
      auth: 'user',
      summary: 'Delete a template (author or admin)',
      params: idParams,
      success: { status: 204, description: 'Deleted; no content', body: 'none' },
      errors: [403],
    },
    {
      method: 'post',
      path: '/api/templates/:id/render',
      operationId: 'renderTemplate',
      auth: 'user',
      summary: 'Fill a template for a contact',
      description:
        'Values are inserted as text: HTML-escaped into html, and without control characters (CR, LF...) into the subject, so nothing a contact is ' +
        'named can add markup or a header. A contact you may not see: 404. (personId comes with the people area; only contactId is accepted now.)',
      params: idParams,
      body: renderTemplateBody,
      success: { status: 200, description: 'subject, text and html with the placeholders filled', body: 'data', data: renderedTemplateData },
    },
  ],
};
