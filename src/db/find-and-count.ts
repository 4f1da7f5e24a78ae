import type { Attributes, FindOptions, Model, ModelStatic } from 'sequelize';

/**
 * Sequelize's findAndCountAll, one query after the other: the library runs its count and its findAll
 * in parallel, so one list request held two pool connections at once (ADR 0121: at most one per
 * request). Same answer: the rows of the page and the count of every row matching `where`.
 */
export async function findAndCountInTurn<M extends Model>(model: ModelStatic<M>, options: FindOptions<Attributes<NoInfer<M>>>): Promise<{ rows: M[]; count: number }> {
  const rows = await model.findAll(options);
  // As findAndCountAll: the count ignores the selected attributes (count() itself drops the page and order).
  const { attributes: _attributes, ...countOptions } = options;
  const count = await model.count(countOptions);
  return { rows, count };
}
