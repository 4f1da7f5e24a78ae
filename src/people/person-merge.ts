/**
 * What a merge keeps of the shared fields (issue 46): pure, unit-tested in test/unit/person-merge.test.ts.
 * Nothing anyone wrote is lost: the target's values stay; a field it lacks takes the first source's
 * that has one (in the order the request names them); tags are the union (the first spelling of a
 * tag, accents and letter case aside, wins); notes are every distinct note, the target's first,
 * separated by a blank line.
 */
import type { PersonFields } from './person-records.js';

export type MergedFields = Omit<PersonFields, 'id'>;

const tagKey = (tag: string) => tag.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase('sk');

export function mergeFields(target: PersonFields, sources: readonly PersonFields[]): MergedFields {
  const all = [target, ...sources];
  const first = <K extends 'name' | 'phone' | 'title' | 'companyId'>(key: K): PersonFields[K] => all.find((p) => p[key] !== null)?.[key] ?? null;
  const tags: string[] = [];
  const keys = new Set<string>();
  for (const tag of all.flatMap((p) => p.tags)) {
    if (keys.has(tagKey(tag))) continue;
    keys.add(tagKey(tag));
    tags.push(tag);
  }
  const notes: string[] = [];
  for (const note of all.map((p) => p.notes?.trim())) if (note && !notes.includes(note)) notes.push(note);
  return {
    name: first('name'),
    phone: first('phone'),
    title: first('title'),
    companyId: first('companyId'),
    tags,
    notes: notes.length > 0 ? notes.join('\n\n') : null,
  };
}
