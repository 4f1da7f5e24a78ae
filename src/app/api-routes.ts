import type { Router } from 'express';
import type { AppContext } from './context.js';
import type { AuthCookies } from '../auth/cookies.js';
import { openApiHandler } from '../openapi/openapi-routes.js';
import { createAuthMiddleware } from '../auth/auth-middleware.js';
import { createAuthRouter } from '../auth/auth-routes.js';
import { createAdminRouter } from '../admin/admin-routes.js';
import { createTimesheetRouter } from '../timesheets/timesheet-routes.js';
import { createContactRouter } from '../contacts/contact-routes.js';
import { createContactTransferRouter } from '../contacts/contact-transfer-routes.js';
import { createCompanyRouter } from '../companies/company-routes.js';
import { createPersonRouter } from '../people/person-routes.js';
import { createEmailRouter } from '../emails/email-routes.js';
import { createSendingRouter } from '../sending/sending-routes.js';
import { createEmailAccountRouter } from '../email-accounts/email-account-routes.js';
import { createPrivacyRouter } from '../privacy/privacy-routes.js';
import { createEventRouter } from '../events/event-routes.js';
import { createDirectoryRouter } from '../users/directory-routes.js';
import { createApiTokenRouter } from '../api-tokens/api-token-routes.js';
import { createTimesheetAdminRouter } from '../timesheets/timesheet-admin-routes.js';
import { createContactFollowUpRouter, createFollowUpRouter } from '../follow-ups/follow-up-routes.js';
import { createConversationRouter } from '../conversations/conversation-routes.js';
import { createSignatureRouter } from '../signatures/signature-routes.js';
import { createTemplateRouter } from '../templates/template-routes.js';
import { createDraftRouter } from '../drafts/draft-routes.js';
import { createScheduledEmailRouter } from '../scheduled-emails/scheduled-email-routes.js';
import { expensiveRequests } from '../http/expensive-requests.js';
import { FormUploads } from '../sending/multipart-middleware.js';
import { createWebhookRouter } from '../webhooks/webhook-routes.js';
import { createSearchRouter } from '../search/search-routes.js';
import { createTaskRouter } from '../tasks/task-routes.js';
import { createTimelineRouter } from '../timelines/timeline-routes.js';

/** Every area mounts its router here, under /api; all share one authentication middleware. */
export function mountApiRoutes(api: Router, ctx: AppContext, cookies: AuthCookies): void {
  const auth = createAuthMiddleware(ctx.services.tokens, ctx.services.sessions, cookies, ctx.services.apiTokens);
  // One bound for searches and exports across all areas: a user's searches and exports share it (issue 52).
  const expensive = expensiveRequests(ctx.config.expensiveRequestsPerUser);
  // Forms with files (sending and drafts) share one bound of uploads per user and in all.
  const formUploads = new FormUploads(ctx.config.sending);
  api.get('/openapi.json', openApiHandler({ metricsPath: ctx.config.metricsPath }));
  api.use('/auth', createAuthRouter(ctx.services, auth, cookies));
  api.use('/admin/privacy', createPrivacyRouter(ctx.services, auth, expensive));
  api.use('/admin/webhooks', createWebhookRouter(ctx.services, auth));
  api.use('/admin', createAdminRouter(ctx.services, auth));
  api.use('/timesheets', createTimesheetRouter(ctx.services, auth));
  // Follow-ups first: their sub-path of a contact is their own, everything else under /contacts falls through.
  api.use('/contacts', createContactFollowUpRouter(ctx.services, auth));
  // Import and export before the contacts router, whose /:id would read "import" and "export" as ids.
  api.use('/contacts', createContactTransferRouter(ctx.services, auth, expensive));
  api.use('/contacts', createContactRouter(ctx.services, auth, expensive));
  // Timelines first: their sub-path of a company or a person is their own, everything else falls through.
  api.use('/companies', createTimelineRouter('company', ctx.services, auth));
  api.use('/people', createTimelineRouter('person', ctx.services, auth));
  api.use('/companies', createCompanyRouter(ctx.services, auth, expensive));
  api.use('/people', createPersonRouter(ctx.services, auth, expensive));
  api.use('/follow-ups', createFollowUpRouter(ctx.services, auth));
  api.use('/tasks', createTaskRouter(ctx.services, auth));
  // Sending first: its two POSTs are its own, everything else under /emails falls through.
  api.use('/emails', createSendingRouter(ctx.services, auth, formUploads));
  api.use('/emails', createEmailRouter(ctx.services, auth, expensive, { corsOrigins: ctx.config.corsOrigins }));
  // Signatures first: their sub-path of an account is their own, everything else falls through.
  api.use('/email-accounts', createSignatureRouter(ctx.services, auth));
  api.use('/conversations', createConversationRouter(ctx.services, auth, expensive));
  api.use('/search', createSearchRouter(ctx.services, auth, expensive));
  api.use('/email-accounts', createEmailAccountRouter(ctx.services, auth));
  api.use('/templates', createTemplateRouter(ctx.services, auth));
  api.use('/drafts', createDraftRouter(ctx.services, auth, formUploads));
  api.use('/scheduled-emails', createScheduledEmailRouter(ctx.services, auth));
  api.use('/events', createEventRouter(ctx.services, auth));
  api.use('/users', createDirectoryRouter(ctx.services, auth));
  api.use('/admin/timesheets', createTimesheetAdminRouter(ctx.services, auth, expensive));
  api.use('/tokens', createApiTokenRouter(ctx.services, auth));
}
