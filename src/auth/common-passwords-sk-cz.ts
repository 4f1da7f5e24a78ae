/**
 * Slovak and Czech passwords the breach-derived English list (fxa-common-password-list) does not know
 * (issue 52, finding 19: "heslo12345", "password12345" in Slovak, was accepted).
 *
 * Source: written by hand for this project, not copied from a breach dump. It holds the words Slovak
 * and Czech speakers are known to reach for when asked for a password: the word for password itself
 * (heslo) and its variants, greetings, endearments and pet names, the commonest first names, the
 * countries, cities and football and hockey clubs, and everyday words. Each word counts with any run
 * of digits or punctuation before or after it ("Heslo12345", "2024bratislava!"), letter case and
 * diacritics aside, because that is how such a password is made "long enough".
 *
 * Maintenance: add a word in lower case without diacritics, in its group, keeping the groups sorted; a
 * word shorter than 4 letters is not worth a line (with the 10 characters minimum it would mostly
 * refuse strong passwords that merely start with it, e.g. "jan" + a year). Changing the list never
 * affects stored passwords: it applies to the next password set.
 */
const WORDS = `
heslicko heslo hesla mojeheslo noveheslo stareheslo tajneheslo supertajne tajne tajnosti
zmenheslo zmenitheslo zmena prihlasenie prihlaseni pouzivatel uzivatel pristup vstup admin administrator
ahoj ahojky cauko nazdar dobryden dakujem dekuji prosim
laska lasko laskavost milacek milacik miluji milujem milujemta milujuta milujite zlatko zlaticko srdiecko srdicko
pusinka pusa beruska slunicko slniecko slnko kocicka kocka macka macicka mackamilacik pejsek psik zajko zajicek
medvedik medvidek mysicka myska andulka princezna princ kralovna kral anjelik andilek
martin peter michal tomas jozef jakub lukas marek pavel honza ondrej frantisek jiri petr milan stefan
lucia lucie jana zuzana katka katarina petra tereza veronika simona monika kristyna barbora nikola maria
mama mamka maminka mamicka tata tatko tatinek babka babicka dedko dedecek rodina deti
slovensko slovakia slovak slovensky cesko cechy ceskarepublika morava bratislava kosice presov zilina nitra
trnava banskabystrica praha brno ostrava plzen olomouc liberec
sparta slavia banik slovan dukla kometa fotbal futbal hokej hokejista
pocitac notebook internet skola prace praca robota firma kancelaria kancelar klavesnica klavesnice
jahoda jablko malina ceresna tresen cokolada kava pivo slivovica borovicka
motorka auto skoda felicia octavia fabia
`;

const COMMON = new Set(WORDS.split(/\s+/).filter((w) => w.length >= 4));

/** Lower case without diacritics or the digits and punctuation around the word. */
function baseWord(password: string): string {
  return password
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/^[\p{N}\p{P}\p{S}\s]+|[\p{N}\p{P}\p{S}\s]+$/gu, '');
}

export function isCommonSlovakOrCzechPassword(password: string): boolean {
  return COMMON.has(baseWord(password));
}
