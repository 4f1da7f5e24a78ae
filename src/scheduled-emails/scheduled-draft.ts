import type { Recipient } from '../sending/compose.js';
import type { KeptDraft } from '../sending/failed-send.js';
import type { ScheduledRecord } from './scheduled-email-repository.js';

/**
 * The server draft that keeps a scheduled email's text when it is cancelled or cannot go: its
 * recipients, subject, text and HTML as they were given (the signature is added again at its send).
 * A forward becomes a new message with the typed text (a draft does not forward).
 */
export function keptDraftOf(row: ScheduledRecord, emailAccountId: string): KeptDraft {
  const r = row.request as { to?: Recipient[]; cc?: Recipient[]; bcc?: Recipient[]; subject?: string; text?: string; html?: string };
  return {
    emailAccountId,
    ...(row.kind === 'reply' && row.emailId ? { replyToEmailId: row.emailId } : {}),
    to: r.to ?? [],
    cc: r.cc ?? [],
    bcc: r.bcc ?? [],
    subject: r.subject ?? '',
    text: r.text ?? '',
    ...(r.html !== undefined ? { html: r.html } : {}),
  };
}
