import { ReferenceKind, type EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * An entity's row as the column list and select list of `insert into t (columns) select values
 * from ...`, read from its MikroORM metadata (column names, types and value conversions), so a
 * statement that inserts conditionally writes exactly what `em.insert` would. Each value is a
 * binding cast to its column's type: a select list gives the parameters no type of their own.
 */
export function insertSelect<T extends object>(em: EntityManager, entity: EntityName<T>, row: T): { columns: string; values: string; params: unknown[] } {
  const meta = em.getMetadata().get(entity);
  const platform = em.getPlatform();
  const columns: string[] = [];
  const values: string[] = [];
  const params: unknown[] = [];
  for (const prop of meta.props) {
    if (prop.persist === false || prop.kind !== ReferenceKind.SCALAR || prop.fieldNames.length !== 1) continue;
    const value = (row as Record<string, unknown>)[prop.name];
    if (value === undefined) continue;
    columns.push(platform.quoteIdentifier(prop.fieldNames[0]));
    values.push(`cast(? as ${prop.columnTypes[0]})`);
    params.push(prop.customType ? prop.customType.convertToDatabaseValue(value, platform, { mode: 'query' }) : value);
  }
  return { columns: columns.join(', '), values: values.join(', '), params };
}
