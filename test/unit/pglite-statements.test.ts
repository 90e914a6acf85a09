import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteStatements } from '../../src/db/pglite-statements.js';

describe('named statements on PGlite', () => {
  let client: PGlite;
  let run: ReturnType<typeof pgliteStatements>;
  beforeAll(async () => {
    client = await PGlite.create();
    run = pgliteStatements(client);
    await client.exec('create table notes (id int primary key, body text)');
  });
  afterAll(() => client.close());

  it('runs a statement again by its name with new values, typed rows back', async () => {
    const text = 'select $1::int + 1 as next, $2::text as label, $3::boolean as flag, $4::text[] as list, $5::timestamptz as at';
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(await run('typed', text, [1, 'a', true, ['x', 'y "quoted" \\ back', null], at])).toEqual([
      { next: 2, label: 'a', flag: true, list: ['x', 'y "quoted" \\ back', null], at },
    ]);
    expect(await run('typed', text, [41, 'b', false, [], at])).toEqual([{ next: 42, label: 'b', flag: false, list: [], at }]);
  });

  it('plans the unnamed statement anew for each call', async () => {
    expect(await run('', 'select $1::text as value', ['one'])).toEqual([{ value: 'one' }]);
    expect(await run('', 'select $1::int * 2 as value', [21])).toEqual([{ value: 42 }]);
  });

  it('a statement that fails frees its name, so the next call parses it again', async () => {
    await expect(run('divides', 'select 1 / $1::int as value', [0])).rejects.toThrow(/division by zero/);
    expect(await run('divides', 'select 1 / $1::int as value', [1])).toEqual([{ value: 1 }]);
    await expect(run('broken', 'select from nowhere', [])).rejects.toThrow(/nowhere/);
    expect(await run('broken', 'select 1 as fixed', [])).toEqual([{ fixed: 1 }]);
  });

  it('waits for a transaction in progress instead of running inside it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = client.transaction(async (tx) => {
      await tx.query("insert into notes values (1, 'uncommitted')");
      await held;
      await tx.rollback();
    });
    const read = run<{ count: number }>('count', 'select count(*)::int as count from notes', []);
    release();
    await transaction;
    expect(await read).toEqual([{ count: 0 }]);
  });
});
