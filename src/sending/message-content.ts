import { withSignature, type Signature } from '../signatures/signature-text.js';
import type { ComposeBody, ReplyBody } from './send-request.js';

/** Where the text of a message comes from besides the request: the sender's signature and templates. */
export interface ContentSources {
  signatures: { forSending(userId: string, accountId: string): Promise<Signature | null> };
  templates: { render(userId: string, templateId: string, target: { contactId: string } | { personId: string }): Promise<{ subject: string; text: string; html: string | null }> };
}

export interface MessageContent {
  /** Absent: the default (a reply's "Re: ...", else none). */
  subject?: string;
  text: string;
  html?: string;
  /** The same before the signature: what a draft keeps when the send fails (the signature is added again at its send). */
  unsigned: { subject?: string; text: string; html?: string };
}

/**
 * What goes out: the request's subject, text and HTML; for a new message with templateId the
 * template rendered for its person or contact fills what the request leaves out; then the sender's signature
 * of the mailbox below it, unless the request says signature: false (issue 47).
 */
export async function messageContent(sources: ContentSources, userId: string, accountId: string, body: ReplyBody | ComposeBody): Promise<MessageContent> {
  let { subject, text, html } = body;
  const compose = body as ComposeBody;
  const target = compose.personId !== undefined ? { personId: compose.personId } : compose.contactId !== undefined ? { contactId: compose.contactId } : undefined;
  if (compose.templateId !== undefined && target) {
    const rendered = await sources.templates.render(userId, compose.templateId, target);
    subject ??= rendered.subject;
    text ??= rendered.text;
    html ??= rendered.html ?? undefined;
  }
  const signature = body.signature === false ? null : await sources.signatures.forSending(userId, accountId);
  const unsigned = { ...(subject !== undefined ? { subject } : {}), text: text ?? '', ...(html !== undefined ? { html } : {}) };
  return { ...unsigned, ...withSignature(unsigned, signature), unsigned };
}
