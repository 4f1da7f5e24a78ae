/**
 * Template placeholders (issue 47): pure functions, unit-tested in test/unit/template-render.test.ts.
 * Values are inserted as text, never as markup or headers: into HTML escaped, into the subject without
 * any control character (a CR/LF in a contact's name must never start a header line), into the text
 * without control characters other than tab and line feed.
 */
import { escapeHtml } from '../signatures/signature-text.js';

export const PLACEHOLDERS = ['contact.name', 'contact.firstName', 'contact.lastName', 'company.name', 'user.firstName', 'user.lastName'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<Placeholder, string>;

const KNOWN = new Set<string>(PLACEHOLDERS);
/** `{{ name }}`, spaces allowed inside the braces. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const HEADER_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const TEXT_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g;

/** The placeholders of `text` that are not known, each once, in order of appearance. */
export function unknownPlaceholders(text: string): string[] {
  const unknown = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) if (!KNOWN.has(match[1])) unknown.add(match[1]);
  return [...unknown];
}

export interface TemplateParts {
  subject: string;
  text: string;
  html: string | null;
}

/** The template with every placeholder replaced by its value, made safe for where it lands. */
export function renderTemplate(template: TemplateParts, values: PlaceholderValues): TemplateParts {
  const fill = (source: string, clean: (value: string) => string) =>
    source.replace(PLACEHOLDER, (whole, name: string) => (KNOWN.has(name) ? clean(values[name as Placeholder] ?? '') : whole));
  const asText = (value: string) => value.replace(TEXT_UNSAFE, ' ');
  return {
    subject: fill(template.subject.replace(HEADER_UNSAFE, ' '), (value) => value.replace(HEADER_UNSAFE, ' ').replace(/ {2,}/g, ' ').trim()),
    text: fill(template.text, asText),
    html: template.html === null ? null : fill(template.html, (value) => escapeHtml(asText(value))),
  };
}

/** A contact's name split as people write it: the first word, and the rest. */
export function nameParts(name: string | null | undefined): { firstName: string; lastName: string } {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return { firstName: words[0] ?? '', lastName: words.slice(1).join(' ') };
}
