import { commentData, conversationData, conversationDetailData, conversationSchema, markConversationReadData } from '../conversations/conversation-responses.js';
import { commentParams, conversationQuery, createCommentBody, listConversationsQuery, updateConversationBody } from '../conversations/conversation-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const conversationArea: AreaDoc = {
  tag: 'conversations',
  description:
    'The team inbox: one conversation per thread of a mailbox you may read (own, or shared with canRead), with an assignee, a status ' +
    "(open / done) and your own unread count (each member has their own read state; the email's isRead stays the mailbox's flag). " +
    'A conversation of a mailbox you may not read is a 404, as are its comments and actions. Internal comments are never sent as mail.',
  routes: [
    {
      method: 'get',
      path: '/api/conversations',
      operationId: 'listConversations',
      auth: 'user',
      summary: 'List conversations',
      description:
        'Newest activity first (lastMessageAt, then id); status defaults to open; pagination.total counts conversations (bounded at ' +
        '10,000 like the email lists: see totalExact). assignee=me|none|<userId>; unread=true: with mail unread by you.' +
        ' With a search, at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: listConversationsQuery,
      success: { status: 200, description: 'A page of conversations', body: 'list', item: conversationSchema },
      errors: [403, 404, 429],
    },
    {
      method: 'get',
      path: '/api/conversations/:id',
      operationId: 'getConversation',
      auth: 'user',
      summary: 'A conversation with its messages and comments',
      description:
        'messages: its emails oldest first, paged by page and limit (messagesPagination); comments: all, oldest first. At most ' +
        'HTML_PAGE_MAX_BYTES of HTML per page (htmlOmitted page_limit past it); HTML_RENDERS_PER_USER such reads per user (429 beyond).',
      params: idParams,
      query: conversationQuery,
      success: { status: 200, description: 'The conversation', body: 'data', data: conversationDetailData },
      errors: [404, 429],
    },
    {
      method: 'patch',
      path: '/api/conversations/:id',
      operationId: 'updateConversation',
      auth: 'user',
      summary: 'Assign a conversation, or close / reopen it',
      description:
        'By the owner or an editor of the mailbox (a viewer: 403). The assignee must be an active user who can read the mailbox (else 400, ' +
        'nothing changed). done takes the thread off awaiting-reply; new inbound mail reopens it. Audited; every reader gets conversation.updated.',
      params: idParams,
      body: updateConversationBody,
      success: { status: 200, description: 'The conversation as it now stands', body: 'data', data: conversationData },
      errors: [403, 404],
    },
    {
      method: 'post',
      path: '/api/conversations/:id/read',
      operationId: 'markConversationRead',
      auth: 'user',
      summary: 'Mark the whole conversation read for you',
      description:
        "Your own read state only: it stays unread for your colleagues. For the mailbox's owner the mailbox's flags are set too (written " +
        'back to the mail server, as PATCH /api/emails/{id} does).',
      params: idParams,
      success: { status: 200, description: 'Marked', body: 'data', data: markConversationReadData },
      errors: [404],
    },
    {
      method: 'post',
      path: '/api/conversations/:id/comments',
      operationId: 'createConversationComment',
      auth: 'user',
      summary: 'Add an internal comment',
      description:
        'Anyone who may read the conversation (viewers too). @username of a colleague who can read the mailbox sends them (only) a ' +
        'comment.mentioned event; every reader gets comment.created. Never sent as mail.',
      params: idParams,
      body: createCommentBody,
      success: { status: 201, description: 'The comment', body: 'data', data: commentData },
      errors: [404],
    },
    {
      method: 'delete',
      path: '/api/conversations/:id/comments/:commentId',
      operationId: 'deleteConversationComment',
      auth: 'user',
      summary: 'Delete your comment',
      description: 'Only its author (anyone else: 403).',
      params: commentParams,
      success: { status: 204, description: 'Deleted; no content', body: 'none' },
      errors: [403, 404],
    },
  ],
};
