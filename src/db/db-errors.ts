import { ForeignKeyConstraintError, UniqueConstraintError } from 'sequelize';

/**
 * The database's refusals that services turn into the spec's errors (409, 404) — asked through these
 * predicates so that services need not know the driver's error classes.
 */
export const isUniqueViolation = (err: unknown): boolean => err instanceof UniqueConstraintError;
export const isForeignKeyViolation = (err: unknown): boolean => err instanceof ForeignKeyConstraintError;
