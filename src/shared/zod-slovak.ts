import { z } from 'zod';

/**
 * docs/contract.md §7 (every message is Slovak, validation details too): the one zod error map of the
 * program, installed as zod's locale when this module is first imported (src/shared/validation.ts and
 * the configuration schema import it). A message a schema gives itself still wins; this map speaks
 * for every check that has none (a `?limit=101`, a JSON array body, a wrong type, an unknown field).
 * zod ships an `sk` locale, but it leaves zod's type names in English ("string", "number") and
 * misspells "kľúč"; these are written for our users. The field itself is named by `details[].field`.
 */
type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'číslo',
  int: 'celé číslo',
  bigint: 'celé číslo',
  boolean: 'true alebo false',
  object: 'objekt JSON',
  array: 'zoznam',
  date: 'dátum',
  null: 'null',
  undefined: 'žiadna hodnota',
  nan: 'číslo',
};

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'Neplatná emailová adresa',
  uuid: 'Neplatný identifikátor (UUID)',
  uuidv4: 'Neplatný identifikátor (UUID)',
  uuidv6: 'Neplatný identifikátor (UUID)',
  uuidv7: 'Neplatný identifikátor (UUID)',
  guid: 'Neplatný identifikátor (UUID)',
  url: 'Neplatná adresa URL',
  datetime: 'Očakáva sa dátum a čas v ISO 8601 (napr. 2024-05-01T08:00:00Z)',
  date: 'Očakáva sa dátum v tvare RRRR-MM-DD',
  time: 'Očakáva sa čas v tvare HH:MM',
  regex: 'Hodnota nemá povolený tvar',
};

const SIZE_UNITS: Record<string, [one: string, few: string, many: string]> = {
  string: ['znak', 'znaky', 'znakov'],
  array: ['položka', 'položky', 'položiek'],
  set: ['položka', 'položky', 'položiek'],
  file: ['bajt', 'bajty', 'bajtov'],
};

/** Slovak plural: 1 znak, 2-4 znaky, 5+ (and 0) znakov. */
function counted(n: number | bigint, unit: [string, string, string]): string {
  const value = Number(n);
  const form = value === 1 ? unit[0] : value >= 2 && value <= 4 ? unit[1] : unit[2];
  return `${String(n)} ${form}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'zoznam';
  if (typeof value === 'number' && Number.isNaN(value)) return 'neplatné číslo';
  return TYPE_NAMES[typeof value] ?? 'iná hodnota';
}

function literal(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

function invalidType(issue: Extract<Issue, { code: 'invalid_type' }>): string {
  if (issue.input === undefined) return 'Hodnota je povinná';
  const expected = TYPE_NAMES[issue.expected] ?? 'inú hodnotu';
  return `Očakáva sa ${expected}, prišlo: ${typeName(issue.input)}`;
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>): string {
  const unit = SIZE_UNITS[issue.origin];
  if (unit) return issue.inclusive ? `Najviac ${counted(issue.maximum, unit)}` : `Menej ako ${counted(issue.maximum, unit)}`;
  if (issue.origin === 'date') return 'Dátum je príliš neskorý';
  return issue.inclusive ? `Hodnota môže byť najviac ${String(issue.maximum)}` : `Hodnota musí byť menšia ako ${String(issue.maximum)}`;
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  const unit = SIZE_UNITS[issue.origin];
  if (unit) {
    if (issue.origin === 'string' && Number(issue.minimum) === 1 && issue.inclusive) return 'Hodnota nesmie byť prázdna';
    return issue.inclusive ? `Aspoň ${counted(issue.minimum, unit)}` : `Viac ako ${counted(issue.minimum, unit)}`;
  }
  if (issue.origin === 'date') return 'Dátum je príliš skorý';
  return issue.inclusive ? `Hodnota musí byť aspoň ${String(issue.minimum)}` : `Hodnota musí byť väčšia ako ${String(issue.minimum)}`;
}

/** The message of one unknown field: the one rule for unknown body and query fields. */
export function unknownFieldMessage(key: string): string {
  return `Neznáme pole: ${key}`;
}

export function slovakMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return invalidType(issue);
    case 'too_big':
      return tooBig(issue);
    case 'too_small':
      return tooSmall(issue);
    case 'invalid_format':
      return FORMAT_MESSAGES[issue.format] ?? 'Hodnota nemá povolený tvar';
    case 'not_multiple_of':
      return `Hodnota musí byť násobkom ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return issue.keys.length === 1 ? unknownFieldMessage(issue.keys[0]) : `Neznáme polia: ${issue.keys.join(', ')}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `Očakáva sa hodnota ${literal(issue.values[0])}` : `Povolené hodnoty: ${issue.values.map(literal).join(', ')}`;
    case 'invalid_key':
      return 'Neplatný kľúč';
    case 'invalid_element':
      return 'Neplatná položka';
    default:
      return 'Neplatná hodnota';
  }
}

z.config({ localeError: slovakMessage });
