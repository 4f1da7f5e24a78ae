import { signatureData } from '../signatures/signature-responses.js';
import { putSignatureBody } from '../signatures/signature-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const signatureArea: AreaDoc = {
  tag: 'signatures',
  description:
    'Your own signature per mailbox you may send from: each member of a team mailbox has their own. Appended below the text (after a "-- " line) ' +
    'and the HTML of what you send from that mailbox (compose, reply), unless the send request says signature: false. ' +
    'A mailbox not shared with you: 404; one shared without canSend (a viewer): 403',
  routes: [
    {
      method: 'get',
      path: '/api/email-accounts/:id/signature',
      operationId: 'getSignature',
      auth: 'user',
      summary: 'Your signature for a mailbox',
      description: 'Never set: text "" and html null (nothing is appended).',
      params: idParams,
      success: { status: 200, description: 'The signature', body: 'data', data: signatureData },
      errors: [403],
    },
    {
      method: 'put',
      path: '/api/email-accounts/:id/signature',
      operationId: 'setSignature',
      auth: 'user',
      summary: 'Set your signature for a mailbox',
      description:
        'Replaces it. text at most 10,000 characters, html at most 50,000 (400 with a Slovak message beyond). The HTML is cleaned by the sanitiser ' +
        'of email bodies (no scripts, event handlers, frames...) and stored clean; without html, the text (escaped) goes into HTML messages. ' +
        'An empty text and no html: no signature. Audited (email_signature.updated: the length, never the text).',
      params: idParams,
      body: putSignatureBody,
      success: { status: 200, description: 'The signature as stored', body: 'data', data: signatureData },
      errors: [403],
    },
  ],
};
