import { ValidationError } from '../errors/app-errors.js';

/** The range the database enforces (CHECK constraints); checked first so a bad value is a 400, not a 500. */
export const MIN_YEAR = 2000;
export const MAX_YEAR = 2100;

export const YEAR_MESSAGE = `Rok musí byť celé číslo od ${MIN_YEAR} do ${MAX_YEAR}`;
export const MONTH_MESSAGE = 'Mesiac musí byť celé číslo od 1 do 12';

export function assertPeriod(year: number, month: number, maxYear = MAX_YEAR): void {
  const problems: Array<{ field: string; message: string }> = [];
  if (!Number.isInteger(year) || year < MIN_YEAR || year > maxYear) problems.push({ field: 'year', message: YEAR_MESSAGE });
  if (!Number.isInteger(month) || month < 1 || month > 12) problems.push({ field: 'month', message: MONTH_MESSAGE });
  if (problems.length > 0) throw new ValidationError('Neplatné obdobie výkazu', problems);
}
