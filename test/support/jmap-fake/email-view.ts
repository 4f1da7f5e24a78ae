/**
 * Email/get of one stored email (RFC 8621 §4.1, §4.2): the requested properties, the body structure
 * split into textBody/htmlBody/attachments by the RFC's own algorithm (§4.1.4), body values with
 * maxBodyValueBytes, and the `header:Name:form` properties, refusing what Cyrus refuses.
 */
import { asAddresses, asDate, asMessageIds, asText, blobIdOf, decodeCharset, headerValue, utcDate, type MimePart } from './mime.js';
import type { StoredEmail } from './store.js';

export const DEFAULT_PROPERTIES = [
  'id',
  'blobId',
  'threadId',
  'mailboxIds',
  'keywords',
  'size',
  'receivedAt',
  'messageId',
  'inReplyTo',
  'references',
  'sender',
  'from',
  'to',
  'cc',
  'bcc',
  'replyTo',
  'subject',
  'sentAt',
  'hasAttachment',
  'preview',
  'bodyValues',
  'textBody',
  'htmlBody',
  'attachments',
];
const OTHER_PROPERTIES = ['headers', 'bodyStructure'];
export const DEFAULT_BODY_PROPERTIES = ['partId', 'blobId', 'size', 'name', 'type', 'charset', 'disposition', 'cid', 'language', 'location'];
const BODY_PROPERTIES = [...DEFAULT_BODY_PROPERTIES, 'headers', 'subParts'];
const ADDRESS_HEADERS = ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc', 'resent-from', 'resent-sender', 'resent-reply-to', 'resent-to', 'resent-cc', 'resent-bcc'];
/** Structured headers: asText is refused on them (Cyrus: invalidArguments), as RFC 8621 §4.1.2.3 allows. */
const NOT_TEXT = [
  ...ADDRESS_HEADERS,
  'date',
  'resent-date',
  'message-id',
  'in-reply-to',
  'references',
  'list-help',
  'list-unsubscribe',
  'list-subscribe',
  'list-post',
  'list-owner',
  'list-archive',
];

export interface BodyOptions {
  bodyProperties?: string[] | null;
  fetchTextBodyValues?: boolean;
  fetchHTMLBodyValues?: boolean;
  fetchAllBodyValues?: boolean;
  maxBodyValueBytes?: number;
}

/** The first property Email/get must refuse, as Cyrus names it ("properties[0:bogus]"), or undefined. */
export function invalidProperty(properties: string[]): string | undefined {
  for (const [i, p] of properties.entries()) {
    if (DEFAULT_PROPERTIES.includes(p) || OTHER_PROPERTIES.includes(p)) continue;
    const m = /^header:([^:]+)(?::(asRaw|asText|asAddresses|asGroupedAddresses|asMessageIds|asDate|asURLs))?(?::all)?$/.exec(p);
    if (m && !(m[2] === 'asText' && NOT_TEXT.includes(m[1].toLowerCase()))) continue;
    return `properties[${i}:${p}]`;
  }
  return undefined;
}

export function invalidBodyProperty(properties: string[]): string | undefined {
  const bad = properties.findIndex((p) => !BODY_PROPERTIES.includes(p) && !p.startsWith('header:'));
  return bad < 0 ? undefined : `bodyProperties[${bad}:${properties[bad]}]`;
}

interface Split {
  textBody: MimePart[];
  htmlBody: MimePart[];
  attachments: MimePart[];
}

const isInlineMedia = (type: string) => /^(image|audio|video)\//.test(type);
const nameOf = (p: MimePart): string | null => p.dispositionParams.filename ?? p.params.name ?? null;

/** RFC 8621 §4.1.4, transcribed. */
export function splitBody(root: MimePart): Split {
  const out: Split = { textBody: [], htmlBody: [], attachments: [] };
  walk([root], 'mixed', false, out.htmlBody, out.textBody, out.attachments);
  return out;
}

function walk(parts: MimePart[], multipartType: string, inAlternative: boolean, html: MimePart[] | null, text: MimePart[] | null, attachments: MimePart[]): void {
  const textLength = text ? text.length : -1;
  const htmlLength = html ? html.length : -1;
  for (const [i, part] of parts.entries()) {
    const isMultipart = part.type.startsWith('multipart/');
    const isInline =
      part.disposition !== 'attachment' &&
      (part.type === 'text/plain' || part.type === 'text/html' || isInlineMedia(part.type)) &&
      (i === 0 || (multipartType !== 'related' && (isInlineMedia(part.type) || !nameOf(part))));
    if (isMultipart) {
      const sub = part.type.split('/')[1];
      walk(part.subParts, sub, inAlternative || sub === 'alternative', html, text, attachments);
    } else if (isInline) {
      if (multipartType === 'alternative') {
        if (part.type === 'text/plain') text?.push(part);
        else if (part.type === 'text/html') html?.push(part);
        else attachments.push(part);
        continue;
      }
      let t = text;
      let h = html;
      if (inAlternative) {
        if (part.type === 'text/plain') h = null;
        if (part.type === 'text/html') t = null;
      }
      t?.push(part);
      h?.push(part);
      if ((!t || !h) && isInlineMedia(part.type)) attachments.push(part);
    } else attachments.push(part);
  }
  if (multipartType === 'alternative' && text && html) {
    if (textLength === text.length && htmlLength !== html.length) text.push(...html.slice(htmlLength));
    if (htmlLength === html.length && textLength !== text.length) html.push(...text.slice(textLength));
  }
}

function bodyPart(part: MimePart, properties: string[]): Record<string, unknown> {
  const leaf = part.partId !== null;
  const all: Record<string, () => unknown> = {
    partId: () => part.partId,
    blobId: () => (leaf ? blobIdOf(part.body) : null),
    size: () => (leaf ? part.body.length : 0),
    headers: () => part.headers.map((h) => ({ name: h.name, value: h.value })),
    name: () => nameOf(part),
    type: () => part.type,
    charset: () => (part.type.startsWith('text/') ? (part.params.charset ?? 'us-ascii') : null),
    disposition: () => part.disposition,
    cid: () => headerValue(part.headers, 'content-id')?.trim().replace(/^<|>$/g, '') ?? null,
    language: () => null,
    location: () => null,
    subParts: () => part.subParts.map((p) => bodyPart(p, properties)),
  };
  const out: Record<string, unknown> = {};
  for (const p of properties) {
    if (p === 'subParts' && leaf) continue;
    if (all[p]) out[p] = all[p]();
  }
  return out;
}

function bodyValue(part: MimePart, max: number | undefined): { value: string; isEncodingProblem: boolean; isTruncated: boolean } {
  let value = decodeCharset(part.body, part.params.charset).replace(/\r\n/g, '\n');
  let isTruncated = false;
  if (max !== undefined && max > 0 && Buffer.byteLength(value) > max) {
    let cut = Buffer.from(value, 'utf8').subarray(0, max).toString('utf8');
    if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
    value = cut;
    isTruncated = true;
  }
  return { value, isEncodingProblem: false, isTruncated };
}

function headerProperty(email: StoredEmail, property: string): unknown {
  const [, name, form = 'asRaw', all] = /^header:([^:]+)(?::(as\w+))?(:all)?$/.exec(property) ?? [];
  const values = email.root.headers.filter((h) => h.name.toLowerCase() === name.toLowerCase()).map((h) => h.value);
  const convert = (raw: string): unknown => {
    if (form === 'asText') return asText(raw);
    if (form === 'asAddresses') return asAddresses(raw);
    if (form === 'asMessageIds') return asMessageIds(raw);
    if (form === 'asDate') return asDate(raw);
    return raw;
  };
  if (all) return values.map(convert);
  const last = values[values.length - 1];
  return last === undefined ? null : convert(last);
}

/** Email/get's object for one email. */
export function renderEmail(email: StoredEmail, properties: string[], options: BodyOptions): Record<string, unknown> {
  const split = splitBody(email.root);
  const bodyProps = options.bodyProperties ?? DEFAULT_BODY_PROPERTIES;
  const h = (name: string) => headerValue(email.root.headers, name);
  const addresses = (name: string) => {
    const raw = h(name);
    return raw === undefined ? null : asAddresses(raw);
  };
  const ids = (name: string) => asMessageIds(h(name) ?? '');
  const all: Record<string, () => unknown> = {
    id: () => email.id,
    blobId: () => email.blobId,
    threadId: () => email.threadId,
    mailboxIds: () => Object.fromEntries([...email.mailboxIds].map((m) => [m, true])),
    keywords: () => Object.fromEntries([...email.keywords].map((k) => [k, true])),
    size: () => email.raw.length,
    receivedAt: () => utcDate(email.receivedAt),
    messageId: () => ids('message-id'),
    inReplyTo: () => ids('in-reply-to'),
    references: () => ids('references'),
    sender: () => addresses('sender'),
    from: () => addresses('from'),
    to: () => addresses('to'),
    cc: () => addresses('cc'),
    bcc: () => addresses('bcc'),
    replyTo: () => addresses('reply-to'),
    subject: () => (h('subject') === undefined ? null : asText(h('subject')!)),
    sentAt: () => (h('date') === undefined ? null : asDate(h('date')!)),
    hasAttachment: () => split.attachments.length > 0,
    preview: () => {
      const first = split.textBody.find((p) => p.type === 'text/plain');
      return first ? bodyValue(first, undefined).value.replace(/\s+/g, ' ').slice(0, 256) : '';
    },
    headers: () => email.root.headers.map((x) => ({ name: x.name, value: x.value })),
    bodyStructure: () => bodyPart(email.root, [...bodyProps, 'subParts']),
    textBody: () => split.textBody.map((p) => bodyPart(p, bodyProps)),
    htmlBody: () => split.htmlBody.map((p) => bodyPart(p, bodyProps)),
    attachments: () => split.attachments.map((p) => bodyPart(p, bodyProps)),
    bodyValues: () => {
      const wanted = new Set<MimePart>();
      if (options.fetchTextBodyValues || options.fetchAllBodyValues) split.textBody.forEach((p) => wanted.add(p));
      if (options.fetchHTMLBodyValues || options.fetchAllBodyValues) split.htmlBody.forEach((p) => wanted.add(p));
      return Object.fromEntries([...wanted].filter((p) => p.type.startsWith('text/')).map((p) => [p.partId, bodyValue(p, options.maxBodyValueBytes)]));
    },
  };
  const out: Record<string, unknown> = { id: email.id };
  for (const p of properties) out[p] = p.startsWith('header:') ? headerProperty(email, p) : all[p]();
  return out;
}
