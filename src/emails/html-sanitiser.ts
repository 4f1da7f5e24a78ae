/**
 * The HTML body of an email as the API hands it out: cleaned by sanitize-html to markup that cannot
 * run anything or phone home unasked. No scripts, styles sheets, frames, forms or event handlers; links
 * only to http(s), mailto and tel; inline styles without url(), expression() or imports. Images:
 * `cid:` references become the attachment's download URL (the CRM streams it from the mail server);
 * remote images (http/https) do not load by default: their address moves to `data-crm-src`, and the
 * app either swaps it back on the user's click or asks again with `remoteImages=1` (a tracking pixel
 * then reaches its sender). data: images stay (an image element cannot run script).
 */
import sanitizeHtml from 'sanitize-html';

export interface SanitiseOptions {
  /** Content-ID (without angle brackets, lower-cased) → the URL the image downloads from. */
  inlineImages: Map<string, string>;
  /** Leave http(s) image sources as they are. */
  remoteImages: boolean;
}

export interface SanitisedHtml {
  html: string;
  /** The Content-IDs the body referenced (their parts are shown inline, not as files). */
  referencedCids: Set<string>;
  /** Remote images that were held back (data-crm-src), so the app can offer to load them. */
  blockedImages: number;
}

/** The attribute that holds a remote image's address until the app decides to load it. */
export const REMOTE_IMAGE_ATTRIBUTE = 'data-crm-src';

const LAYOUT_ATTRIBUTES = ['align', 'valign', 'width', 'height', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'colspan', 'rowspan', 'dir', 'lang', 'title', 'style'];
/**
 * A declaration that could fetch something or run something (old IE) is dropped from a style
 * attribute; so is one with a CSS escape, which could spell any of these (\75 rl is url).
 */
const UNSAFE_STYLE = /url\s*\(|image-set|expression\s*\(|@import|behavior\s*:|-moz-binding|javascript:|\\/i;

/** Content-IDs compare without their angle brackets and case-insensitively (RFC 2392 allows %-encoding). */
export function normaliseCid(cid: string): string {
  let value = cid.trim().replace(/^<|>$/g, '');
  try {
    value = decodeURIComponent(value);
  } catch {
    // not %-encoded after all: compare as written
  }
  return value.toLowerCase();
}

export function sanitiseEmailHtml(dirty: string, options: SanitiseOptions): SanitisedHtml {
  const referencedCids = new Set<string>();
  let blockedImages = 0;
  const html = sanitizeHtml(dirty, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'font', 'center', 'u', 's', 'strike', 'big', 'small'],
    disallowedTagsMode: 'discard',
    allowedAttributes: {
      '*': LAYOUT_ATTRIBUTES,
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height', 'referrerpolicy', REMOTE_IMAGE_ATTRIBUTE],
      font: ['color', 'face', 'size'],
      td: ['nowrap'],
      th: ['nowrap'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        // A link opens outside the app and tells the other site nothing about where it came from.
        attribs: { ...withSafeStyle(attribs), target: '_blank', rel: 'noopener noreferrer' },
      }),
      img: (tagName, attribs) => {
        const out: sanitizeHtml.Attributes = { ...withSafeStyle(attribs) };
        delete out.srcset;
        // Only the sanitiser writes this attribute: a sender's own would pass for a held-back image.
        delete out[REMOTE_IMAGE_ATTRIBUTE];
        const src = (attribs.src ?? '').trim();
        if (/^cid:/i.test(src)) {
          const cid = normaliseCid(src.slice(4));
          const url = options.inlineImages.get(cid);
          if (url) {
            referencedCids.add(cid);
            out.src = url;
          } else delete out.src;
        } else if (/^https?:/i.test(src)) {
          // A remote image tells its server nothing about the CRM (our own inline images keep the
          // Referer: it names the app's origin for the download's Cross-Origin-Resource-Policy).
          out.referrerpolicy = 'no-referrer';
          if (options.remoteImages) out.src = src;
          else {
            blockedImages++;
            out[REMOTE_IMAGE_ATTRIBUTE] = src;
            delete out.src;
          }
        } else if (/^data:image\//i.test(src)) {
          out.src = src;
        } else delete out.src;
        return { tagName, attribs: out };
      },
      '*': (tagName, attribs) => ({ tagName, attribs: withSafeStyle(attribs) }),
    },
  });
  return { html, referencedCids, blockedImages };
}

function withSafeStyle(attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  if (attribs.style === undefined) return attribs;
  const style = attribs.style
    .split(';')
    .filter((declaration) => declaration.trim() !== '' && !UNSAFE_STYLE.test(declaration))
    .join(';');
  const out = { ...attribs };
  if (style) out.style = style;
  else delete out.style;
  return out;
}
