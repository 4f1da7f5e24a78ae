/**
 * The HTML body of an email as the API hands it out: cleaned by sanitize-html to markup that cannot
 * run anything or phone home unasked. No scripts, styles sheets, frames, forms or event handlers; links
 * only to http(s), mailto and tel; inline styles from an allow-list (ALLOWED_STYLES). Images:
 * `cid:` references become the attachment's download URL (the CRM streams it from the mail server);
 * remote images (http/https) do not load by default: their address moves to `data-crm-src`, and the
 * app either swaps it back on the user's click or asks again with `remoteImages=1` (a tracking pixel
 * then reaches its sender). data: images stay (an image element cannot run script).
 */
import type SanitizeHtml from 'sanitize-html';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const sanitizeHtml = lazyRequire<typeof SanitizeHtml>('sanitize-html');

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
 * Inline styles: an allow-list of properties (sanitize-html's allowedStyles, parsed by postcss), each
 * with a value of plain words, numbers, colours and rgb()/hsl() only. So nothing fetches (url(),
 * image-set), runs (expression(), behavior, -moz-binding) or hides behind a CSS escape (no backslash),
 * and nothing escapes the message's box to overlay the app (no position, z-index or transform).
 */
const PLAIN_VALUE = String.raw`[-#%.,\w\s'"!/+]`;
const COLOUR_FUNCTION = String.raw`(?:rgba?|hsla?)\([\d\s.,%/]+\)`;
const SAFE_STYLE_VALUE = new RegExp(`^(?:${PLAIN_VALUE}|${COLOUR_FUNCTION})*$`, 'i');
const SIDES = ['', '-top', '-right', '-bottom', '-left'];
const STYLE_PROPERTIES = [
  ...['color', 'background', 'background-color', 'opacity'],
  ...['font', 'font-family', 'font-size', 'font-weight', 'font-style', 'font-variant'],
  ...[
    'text-align',
    'text-decoration',
    'text-transform',
    'text-indent',
    'line-height',
    'letter-spacing',
    'word-spacing',
    'white-space',
    'word-break',
    'vertical-align',
    'direction',
  ],
  ...SIDES.flatMap((side) => [`margin${side}`, `padding${side}`, `border${side}`, `border${side}-color`, `border${side}-style`, `border${side}-width`]),
  ...['border-collapse', 'border-spacing', 'border-radius', 'width', 'height', 'max-width', 'min-width', 'max-height', 'min-height'],
  ...['display', 'float', 'clear', 'overflow', 'list-style', 'list-style-type', 'table-layout'],
];
const ALLOWED_STYLES = { '*': Object.fromEntries(STYLE_PROPERTIES.map((property) => [property, [SAFE_STYLE_VALUE]])) };

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
  const html = sanitizeHtml()(dirty, {
    allowedTags: [...sanitizeHtml().defaults.allowedTags, 'img', 'font', 'center', 'u', 's', 'strike', 'big', 'small'],
    disallowedTagsMode: 'discard',
    allowedAttributes: {
      '*': LAYOUT_ATTRIBUTES,
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height', 'referrerpolicy', REMOTE_IMAGE_ATTRIBUTE],
      font: ['color', 'face', 'size'],
      td: ['nowrap'],
      th: ['nowrap'],
    },
    allowedStyles: ALLOWED_STYLES,
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        // A link opens outside the app and tells the other site nothing about where it came from.
        attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer' },
      }),
      img: (tagName, attribs) => {
        const out: SanitizeHtml.Attributes = { ...attribs };
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
    },
  });
  return { html, referencedCids, blockedImages };
}
