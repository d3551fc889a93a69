import { ReferenceKind, type EntityMetadata, type EntityName, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

interface Shape {
  props: EntityProperty[];
  columns: string;
  values: string;
}

const shapes = new WeakMap<EntityMetadata, Shape>();

/**
 * An entity's row as the column list and select list of `insert into t (columns) select values
 * from ...`, read from its MikroORM metadata (column names, types and value conversions), so a
 * statement that inserts conditionally writes exactly what `em.insert` would. Every column is
 * written (undefined as NULL, as the table's own defaults are the entity's); each value is a
 * binding cast to its column's type, since a select list gives parameters no type of their own.
 * `columns` and `values` are the same strings for every row of an entity. `computed` names
 * properties whose value is an SQL expression of the statement instead (no binding): what the
 * statement itself reads, as a new order's status and currency.
 */
export function insertSelect<T extends object>(em: EntityManager, entity: EntityName<T>, row: T, computed?: Partial<Record<keyof T & string, string>>): { columns: string; values: string; params: unknown[] } {
  const meta = em.getMetadata().get(entity);
  const platform = em.getPlatform();
  let shape = shapes.get(meta);
  if (!shape) {
    const props = meta.props.filter((p) => p.persist !== false && p.kind === ReferenceKind.SCALAR && p.fieldNames.length === 1);
    shape = {
      props,
      columns: props.map((p) => platform.quoteIdentifier(p.fieldNames[0])).join(', '),
      values: props.map((p) => `cast(? as ${p.columnTypes[0]})`).join(', '),
    };
    shapes.set(meta, shape);
  }
  const given = (prop: EntityProperty) => !computed || !(prop.name in computed);
  const params = shape.props.filter(given).map((prop) => {
    const value = (row as Record<string, unknown>)[prop.name] ?? null;
    return prop.customType && value !== null ? prop.customType.convertToDatabaseValue(value, platform, { mode: 'query' }) : value;
  });
  const values = computed
    ? shape.props.map((p) => (given(p) ? `cast(? as ${p.columnTypes[0]})` : `cast(${(computed as Record<string, string>)[p.name]} as ${p.columnTypes[0]})`)).join(', ')
    : shape.values;
  return { columns: shape.columns, values, params };
}
