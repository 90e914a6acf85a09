import { protocol, types, type PGlite } from '@electric-sql/pglite';

const { serialize } = protocol;

interface Field {
  name: string;
  dataTypeID: number;
}

/** A value as the text PostgreSQL reads for a parameter of any type (arrays as array literals). */
function parameterText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((item) => (item === null || item === undefined ? 'NULL' : `"${String(parameterText(item)).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/**
 * Named statements on PGlite. Its `query` goes through the engine six times for each statement
 * (parse, describe, bind, describe, execute, sync) and plans it every time; here a statement is
 * parsed once per name, and each call is one message (bind, describe, execute, sync): two to three
 * times faster for a list page. The empty name is PostgreSQL's unnamed statement, parsed (and so
 * planned for its values) on every call. Calls queue behind transactions as `query` does, so a
 * statement never runs inside another caller's transaction.
 */
export function pgliteStatements(client: PGlite) {
  const parsed = new Set<string>();

  return async function run<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const isNew = name === '' || !parsed.has(name);
    const message = concat([
      ...(isNew ? [serialize.parse({ name, text, types: [] })] : []),
      serialize.bind({ statement: name, values: values.map(parameterText) }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    const { messages } = await client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        try {
          const result = await client.execProtocol(message);
          if (isNew && name !== '') parsed.add(name);
          return result;
        } catch (error) {
          // A parse that succeeded before a later step failed leaves the name taken: free it.
          if (isNew && name !== '') await client.execProtocol(concat([serialize.close({ type: 'S', name }), serialize.sync()]), { throwOnError: false });
          throw error;
        }
      }),
    );
    let fields: Field[] = [];
    const rows: T[] = [];
    for (const entry of messages) {
      if (entry.name === 'rowDescription') fields = (entry as unknown as { fields: Field[] }).fields;
      else if (entry.name === 'dataRow') {
        const cells = (entry as unknown as { fields: Array<string | null> }).fields;
        rows.push(Object.fromEntries(fields.map((field, index) => [field.name, types.parseType(cells[index] ?? null, field.dataTypeID, client.parsers)])) as T);
      }
    }
    return rows;
  };
}
