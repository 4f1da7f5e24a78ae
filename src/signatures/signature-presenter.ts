import type { SignatureRecord } from './signature-repository.js';
import type { SignatureData } from './signature-responses.js';

export function presentSignature(s: SignatureRecord): SignatureData {
  return { signature: { emailAccountId: s.emailAccountId, text: s.text, html: s.html, updatedAt: s.updatedAt } };
}
