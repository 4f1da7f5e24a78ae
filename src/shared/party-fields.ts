/**
 * Field rules shared by companies and contacts (issue 46): a phone number, Slovak and Czech company
 * registration numbers (IČO), EU VAT ids (IČ DPH) and a web address. Framework-free: the companies'
 * PATCH schema and the contact import (src/contacts/import-rows.ts) validate with the same rules and
 * give the same Slovak messages.
 */
import { z } from 'zod';

export const MAX_PHONE = 50;
export const PHONE_MESSAGE = 'Telefón môže obsahovať len číslice, medzery, +, (, ), -, / a . (aspoň 3 číslice)';

/** Digits with the separators people write (+421 905 123 456, 02/123 45 67, (0)2-1234); at least 3 digits. */
export function isPhone(text: string): boolean {
  return text.length <= MAX_PHONE && /^\+?[0-9 ()./-]+$/.test(text) && (text.match(/[0-9]/g)?.length ?? 0) >= 3;
}

/**
 * IČO: exactly 8 digits (spaces typed between groups are dropped) whose last digit is the mod-11
 * check digit of the first seven with weights 8..2, the rule of both the Slovak and the Czech
 * registers (a = sum mod 11; check = 1 when a = 0, 0 when a = 1, else 11 - a).
 */
export function registrationNumberProblem(digits: string): string | null {
  if (!/^[0-9]{8}$/.test(digits)) return 'IČO musí mať presne 8 číslic';
  const sum = [...digits.slice(0, 7)].reduce((acc, d, i) => acc + Number(d) * (8 - i), 0);
  const a = sum % 11;
  const check = a === 0 ? 1 : a === 1 ? 0 : 11 - a;
  return Number(digits[7]) === check ? null : 'IČO nemá platnú kontrolnú číslicu';
}

/**
 * IČ DPH: an EU country prefix and that country's number. Slovakia (SK + 10 digits) and the Czech
 * Republic (CZ + 8 to 10 digits) exactly; the other member states (and XI, Northern Ireland) with
 * the shape of their numbers, 2 to 12 digits and capital letters. Spaces are dropped, letters upper-cased.
 */
const VAT_PATTERNS: Record<string, RegExp> = {
  SK: /^[0-9]{10}$/,
  CZ: /^[0-9]{8,10}$/,
};
const EU_PREFIXES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'EL',
  'ES',
  'FI',
  'FR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
  'XI',
];

export function vatIdProblem(vatId: string): string | null {
  const prefix = vatId.slice(0, 2);
  const rest = vatId.slice(2);
  if (!EU_PREFIXES.includes(prefix)) return 'IČ DPH musí začínať kódom krajiny EÚ (napr. SK2020123456)';
  const shape = VAT_PATTERNS[prefix] ?? /^[0-9A-Z+*]{2,12}$/;
  return shape.test(rest) ? null : prefix === 'SK' ? 'IČ DPH musí byť SK a 10 číslic (napr. SK2020123456)' : `IČ DPH pre ${prefix} nemá platný tvar`;
}

const withoutSpaces = (v: string) => v.replace(/\s+/g, '');

/** A nullable text field of a PATCH: blank clears it (null), else the rule's check. */
function clearable(label: string, max: number, check: (v: string) => string | null, normalise: (v: string) => string = (v) => v) {
  return z
    .string({ error: `${label} musí byť text` })
    .trim()
    .max(max, `${label} môže mať najviac ${max} znakov`)
    .transform((v) => (v === '' ? null : normalise(v)))
    .superRefine((v, ctx) => {
      const problem = v === null ? null : check(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .nullable();
}

export const phoneField = clearable('Telefón', MAX_PHONE, (v) => (isPhone(v) ? null : PHONE_MESSAGE));

export const registrationNumberField = clearable('IČO', 20, registrationNumberProblem, withoutSpaces);

export const vatIdField = clearable('IČ DPH', 20, vatIdProblem, (v) => withoutSpaces(v).toUpperCase());

export const WEBSITE_MESSAGE = 'Web musí byť adresa začínajúca http:// alebo https://';

export const websiteField = clearable('Web', 500, (v) => {
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? null : WEBSITE_MESSAGE;
  } catch {
    return WEBSITE_MESSAGE;
  }
});
