import { awaitingReplySchema, emailData, emailSchema, emailSummarySchema, markReadData } from '../emails/email-responses.js';
import { attachmentParams, awaitingReplyQuery, contactIdParams, listEmailsQuery, threadQuery, updateEmailBody } from '../emails/email-schemas.js';
import { idParams } from '../shared/validation.js';
import { z } from 'zod';
import { composeBody, forwardBody, replyBody } from '../sending/sending-schemas.js';
import { scheduledAccepted } from './scheduled-email-doc.js';
import { sentEmailData } from '../sending/sending-presenter.js';

const files = z.array(z.string().meta({ format: 'binary' })).meta({
  description: 'Files to attach (field "attachments", up to 20): streamed to the mail server; executables are refused',
});
const SENDING =
  'From an email account the caller may send from. Text body (HTML optional); To/Cc/Bcc as arrays or comma-separated ' +
  '("Name <a@b.sk>" or "a@b.sk"); Bcc only in the envelope. As JSON, or as multipart/form-data with the same fields plus ' +
  'files in "attachments": every text field must precede the first file (the whole form is validated there, before any ' +
  'byte goes to the mail server; a field after a file is 400). Names and the subject must not contain control characters ' +
  '(CR, LF...): 400. Header Idempotency-Key: the same key ' +
  'within 24 h answers the first result (Idempotent-Replayed: true) without sending again; a key still in progress is 409 idempotency_conflict. Per-user rate limit (429); attachments spend a ' +
  'per-user upload budget (SEND_UPLOAD_BUDGET_MB, never given back by a failed send: 429 beyond it), and only so many ' +
  'multipart sends of one user run at once (429 with Retry-After). Mail server refusals: ' +
  'recipient_rejected (400), submission_refused (502), mail_quota_exceeded (507); nothing half-sent stays in Drafts. ' +
  'A failure at the mail server (submission_refused, upstream_unavailable, upstream_timeout, mail_quota_exceeded) keeps what was typed as a ' +
  'server draft: its id is error.details.draftId (GET /api/drafts/{id}; attachments are not kept). A retry with the Idempotency-Key of a send ' +
  'whose outcome was unknown answers the same error again (same code and draftId), never sending a second time. Your signature of the mailbox ' +
  '(PUT /api/email-accounts/{id}/signature) is appended unless signature is false. ' +
  'A sender who may send but not read the account (canRead false) gets data.email null.';
import type { AreaDoc } from './route-doc.js';

export const emailArea: AreaDoc = {
  tag: 'emails',
  description:
    "The synced emails of the caller's email accounts and of those shared with them with canRead (else 403 email_account_forbidden); " +
    'read state (owner and editor) is written back to the mail server',
  routes: [
    {
      method: 'get',
      path: '/api/emails',
      operationId: 'listEmails',
      auth: 'user',
      summary: 'List the emails of own and shared email accounts (filters: contactId, emailAccountId, unread, search, from, to, awaitingReply)',
      description:
        'A contactId or emailAccountId filter that is not visible to the caller: 404. awaitingReply=true keeps the newest inbound email of ' +
        'each thread awaiting a reply (the set of GET /api/emails/awaiting-reply) and combines with every other filter; the order stays ' +
        'sort (by date, which is the waitingSince of that endpoint: sort=oldest gives its order).' +
        ' With a search, at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: listEmailsQuery,
      success: { status: 200, description: 'A page of email summaries, newest first', body: 'list', item: emailSummarySchema },
      errors: [403, 404, 429],
    },
    {
      method: 'get',
      path: '/api/emails/awaiting-reply',
      operationId: 'listEmailsAwaitingReply',
      auth: 'user',
      summary: 'Conversations awaiting a reply: per thread of the readable accounts, its newest email when it came from outside',
      description:
        "A thread is listed when its newest email is inbound (neither sent through the CRM nor in its Sent mailbox; a From naming the mailbox's own address does not count) and no later " +
        'email of the thread went out (sent through the CRM, or synced from the Sent mailbox); a reply sent through the CRM ' +
        '(POST /api/emails/{id}/reply, or any send the mail server files in the thread) takes it off at once, before the next sync. Mail from another staff mailbox counts as inbound. Oldest waiting first. olderThanHours: only threads ' +
        'waiting at least that long. An emailAccountId the caller may not see: 404; one shared without canRead: 403.',
      query: awaitingReplyQuery,
      success: { status: 200, description: 'A page of the awaiting threads, oldest waiting first', body: 'list', item: awaitingReplySchema },
      errors: [403, 404],
    },
    {
      method: 'post',
      path: '/api/emails/contact/:contactId/read',
      operationId: 'markContactEmailsRead',
      auth: 'user',
      summary: 'Mark every email of a contact as read',
      params: contactIdParams,
      success: { status: 200, description: 'How many emails changed, and how many the mail server confirmed', body: 'data', data: markReadData },
      errors: [403],
    },
    {
      method: 'get',
      path: '/api/emails/:id',
      operationId: 'getEmail',
      auth: 'user',
      summary: 'One email with its body',
      description: 'HTML_RENDERS_PER_USER such reads (details, thread pages, conversations) in progress per user: 429 with Retry-After beyond.',
      params: idParams,
      success: { status: 200, description: 'The email', body: 'data', data: emailData },
      errors: [403, 429],
    },
    {
      method: 'get',
      path: '/api/emails/:id/thread',
      operationId: 'getEmailThread',
      auth: 'user',
      summary: 'The thread an email belongs to',
      description:
        'At most HTML_PAGE_MAX_BYTES of HTML per page: emails past it answer html null with htmlOmitted page_limit. ' +
        'HTML_RENDERS_PER_USER such reads in progress per user: 429 with Retry-After beyond.',
      params: idParams,
      query: threadQuery,
      success: { status: 200, description: 'A page of the emails of the thread, oldest first', body: 'list', item: emailSchema },
      errors: [403, 429],
    },
    {
      method: 'post',
      operationId: 'sendEmail',
      path: '/api/emails',
      auth: 'user',
      summary: 'Send a new email (to a contact, or to addresses) from an email account',
      description: `${SENDING} Give emailAccountId, or contactId (its account; its address is the default To).`,
      body: composeBody,
      form: composeBody.safeExtend({ attachments: files.optional() }),
      idempotent: true,
      success: {
        status: 201,
        description: 'data.email = the sent email as listed in the CRM; data.sent = Message-ID, account, recipient count',
        body: 'data',
        data: sentEmailData,
      },
      alsoSuccess: scheduledAccepted,
      errors: [403, 404, 409, 413, 429, 502, 504, 507],
    },
    {
      method: 'post',
      operationId: 'replyToEmail',
      path: '/api/emails/:id/reply',
      auth: 'user',
      summary: 'Reply (or reply-all) to an email',
      description: `${SENDING} Recipients default to the original's Reply-To/From (replyAll adds its To and Cc); subject "Re: " once; In-Reply-To and References set.`,
      params: idParams,
      body: replyBody,
      form: replyBody.safeExtend({ attachments: files.optional() }),
      idempotent: true,
      success: {
        status: 201,
        description: "data.email = the reply, already in the contact's thread; data.sent = Message-ID, account, recipient count",
        body: 'data',
        data: sentEmailData,
      },
      alsoSuccess: scheduledAccepted,
      errors: [403, 409, 413, 429, 502, 504, 507],
    },
    {
      method: 'post',
      operationId: 'forwardEmail',
      path: '/api/emails/:id/forward',
      auth: 'user',
      summary: 'Forward an email, with its attachments',
      description:
        `${SENDING} Rights as for a reply: the email must be readable (canRead) and sent from a mailbox you may send from (its own, or emailAccountId). ` +
        'Subject "Fwd: " once (earlier Fwd:/Fw:/WG:/TR: prefixes are not doubled); below your text (and signature) the original is quoted under a ' +
        'block of its From, Date, Subject and To. Its attachments are carried: streamed one by one from the mail server into the new message ' +
        '(the same size limits, upload budget and executable check as uploaded files); files of a form are added before them. Not threaded under the original.',
      params: idParams,
      body: forwardBody,
      form: forwardBody.safeExtend({ attachments: files.optional() }),
      idempotent: true,
      success: {
        status: 201,
        description: 'data.email = the forward as listed in the CRM; data.sent = Message-ID, account, recipient count',
        body: 'data',
        data: sentEmailData,
      },
      alsoSuccess: scheduledAccepted,
      errors: [403, 409, 413, 429, 502, 504, 507],
    },
    {
      method: 'get',
      operationId: 'downloadEmailAttachment',
      path: '/api/emails/:id/attachments/:attachmentId',
      auth: 'user',
      summary: 'Download an attachment of an email (streamed from the mail server)',
      description:
        'The email detail lists attachments (id, name, type, size, inline). The content is streamed from the JMAP ' +
        'server, never stored by the CRM: Content-Disposition attachment (RFC 6266 file name), X-Content-Type-Options nosniff. ' +
        'The same visibility as the email. A blob the mail server no longer has is 404; the mail server unreachable is 502. ' +
        'Downloads in progress are bounded per user and in all (429 with Retry-After beyond); a transfer that moves no byte ' +
        'for ATTACHMENT_IDLE_TIMEOUT_MS (the client stopped reading) is cut off.',
      params: attachmentParams,
      success: { status: 200, description: 'The attachment bytes, with the type the email declared', body: 'file', mediaTypes: ['*/*'] },
      errors: [403, 429, 502, 504],
    },
    {
      method: 'patch',
      path: '/api/emails/:id',
      operationId: 'updateEmail',
      auth: 'user',
      summary: 'Mark an email read or unread',
      params: idParams,
      body: updateEmailBody,
      success: { status: 200, description: 'The email', body: 'data', data: emailData },
      errors: [403],
    },
  ],
};
