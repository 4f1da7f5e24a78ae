/**
 * The keyset cursor of a timeline page (docs/adr/0141-timelines.md): the position of the page's last
 * item in the timeline's order (at newest first, then the type's rank, then the id), opaque to
 * clients (base64url of JSON). `at` keeps PostgreSQL's microseconds, so that two items a fraction of a
 * millisecond apart are told apart exactly as the query orders them.
 */
import { ValidationError } from '../errors/app-errors.js';

export type TimelineType = 'email' | 'follow_up' | 'task';

/** The order of the types at one instant: the tie-break after `at`. */
export const TYPE_RANK: Record<TimelineType, number> = { email: 0, follow_up: 1, task: 2 };

export interface TimelinePosition {
  /** UTC, microseconds: 2026-10-05T09:00:00.123456Z. */
  at: string;
  rank: number;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const BAD_CURSOR = 'Neplatný kurzor: použite nextCursor z predchádzajúcej strany';

export function encodeCursor(p: TimelinePosition): string {
  return Buffer.from(JSON.stringify([p.at, p.rank, p.id])).toString('base64url');
}

/** The position a cursor names, or a 400 (anything a client could make up is checked before it reaches SQL). */
export function decodeCursor(text: string): TimelinePosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(value) || value.length !== 3) throw badCursor();
  const [at, rank, id] = value as unknown[];
  if (typeof at !== 'string' || !AT.test(at) || Number.isNaN(Date.parse(at))) throw badCursor();
  if (typeof rank !== 'number' || !Object.values(TYPE_RANK).includes(rank)) throw badCursor();
  if (typeof id !== 'string' || !UUID.test(id)) throw badCursor();
  return { at, rank, id };
}

/** Whether `a` comes after `b` in the timeline's order (at DESC, rank, id): strings of one fixed form compare as the database does. */
export function comesAfter(a: TimelinePosition, b: TimelinePosition): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.rank !== b.rank) return a.rank > b.rank;
  return a.id > b.id;
}

function badCursor(): ValidationError {
  return new ValidationError(BAD_CURSOR, [{ field: 'cursor', message: BAD_CURSOR }]);
}
