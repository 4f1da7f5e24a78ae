import { Router, type Request } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentEmail } from '../emails/email-presenter.js';
import type { EmailRecord } from '../emails/email-records.js';
import type { HtmlBodies } from '../emails/html-bodies.js';
import { presentComment, presentConversation } from './conversation-presenter.js';
import type { CommentData, ConversationData, ConversationDetailData, MarkConversationReadData } from './conversation-responses.js';
import { commentParams, conversationQuery, createCommentBody, listConversationsQuery, updateConversationBody } from './conversation-schemas.js';
import type { ConversationService } from './conversation-service.js';
import type { CommentService } from './comment-service.js';

/** /api/conversations: the team inbox (docs/api.md "Team inbox"). */
export function createConversationRouter(
  services: { conversations: ConversationService; comments: CommentService; emailHtml: HtmlBodies },
  auth: AuthMiddleware,
  expensive: ExpensiveRequests,
): Router {
  const { conversations, comments, emailHtml } = services;
  const router = Router();
  router.use(auth.requireAuth);

  /** HTML bodies with inline images pointing at this service (as the email routes fill them). */
  const withHtml = async (req: Request, list: EmailRecord[]) => {
    const origin = `${req.protocol}://${req.host}`;
    await emailHtml.fill(requireAuthContext(req).userId, list, {
      remoteImages: false,
      attachmentUrl: (emailId, attachmentId) => `${origin}/api/emails/${emailId}/attachments/${attachmentId}`,
    });
  };

  router.get('/', expensive.whenSearching, async (req, res) => {
    const { page, limit, ...filter } = parseQuery(listConversationsQuery, req);
    const { items, total, totalExact, hasNext } = await conversations.list(requireAuthContext(req).userId, filter, { page, limit });
    ok(res, listResult(items.map(presentConversation), { page, limit }, { total, totalExact, hasNext }), 'Zoznam konverzácií');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { page, limit } = parseQuery(conversationQuery, req);
    const userId = requireAuthContext(req).userId;
    const { conversation, messages } = await conversations.get(userId, id, { page, limit });
    const list = await comments.list(userId, id);
    await withHtml(req, messages.items);
    const { pagination } = listResult([], { page, limit }, messages.total);
    ok(
      res,
      {
        conversation: presentConversation(conversation),
        messages: messages.items.map(presentEmail),
        messagesPagination: pagination,
        comments: list.map(presentComment),
      } satisfies ConversationDetailData,
      'Konverzácia',
    );
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateConversationBody, req);
    const conversation = await conversations.update(requireAuthContext(req).userId, id, changes, requestMeta(req));
    ok(res, { conversation: presentConversation(conversation) } satisfies ConversationData, 'Konverzácia bola zmenená');
  });

  router.post('/:id/read', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { marked, conversation } = await conversations.markRead(requireAuthContext(req).userId, id);
    ok(res, { conversation: presentConversation(conversation), marked } satisfies MarkConversationReadData, 'Konverzácia bola označená ako prečítaná');
  });

  router.post('/:id/comments', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { text } = parseBody(createCommentBody, req);
    const comment = await comments.add(requireAuthContext(req).userId, id, text, requestMeta(req));
    ok(res, { comment: presentComment(comment) } satisfies CommentData, 'Komentár bol pridaný', 201);
  });

  router.delete('/:id/comments/:commentId', async (req, res) => {
    const { id, commentId } = parseParams(commentParams, req);
    await comments.remove(requireAuthContext(req).userId, id, commentId, requestMeta(req));
    res.status(204).end();
  });

  return router;
}
