import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '@/lib/services/store/sqlite-database';

function fresh() {
  const db = new Database(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-sqlite-')), 'test.db'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  return db;
}
const values = (db: Database) =>
  db
    .prepare<[], { v: string }>('SELECT v FROM t ORDER BY id')
    .all()
    .map((row) => row.v);

describe('the SQLite connection', () => {
  it('commits a transaction, and undoes all of one that throws', () => {
    const db = fresh();
    const insert = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => insert.run('kept'))();
    expect(() =>
      db.transaction(() => {
        insert.run('undone');
        throw new Error('no');
      })(),
    ).toThrow('no');
    expect(values(db)).toEqual(['kept']);
  });

  it('runs a transaction inside another as a savepoint: its failure undoes only its own writes', () => {
    const db = fresh();
    const insert = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
    const inner = db.transaction((v: string) => {
      insert.run(v);
      if (v === 'bad') throw new Error('bad');
    });
    db.transaction(() => {
      insert.run('outer');
      inner('inner');
      expect(() => inner('bad')).toThrow('bad');
    }).immediate();
    expect(values(db)).toEqual(['outer', 'inner']);
  });

  it('reads pragmas, changes and functions as the store uses them', () => {
    const db = fresh();
    db.pragma('user_version = 7');
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    db.function('twice', { deterministic: true }, (text: unknown) => `${String(text)}${String(text)}`);
    expect(db.prepare<[string]>('INSERT INTO t (v) VALUES (twice(?))').run('ab').changes).toBe(1);
    expect(db.prepare<[string], { v: string }>('SELECT v FROM t WHERE v = ?').get('abab')).toEqual({ v: 'abab' });
    expect(db.prepare('UPDATE t SET v = v').run().changes).toBe(1);
  });

  it('refuses a missing file when it must exist, and opens read-only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-sqlite-'));
    expect(() => new Database(path.join(dir, 'none.db'), { fileMustExist: true })).toThrow(/no database/);
    const file = path.join(dir, 'x.db');
    new Database(file).close();
    const readonly = new Database(file, { readonly: true });
    expect(() => readonly.exec('CREATE TABLE u (x)')).toThrow(/readonly/);
  });
});

describe('two connections to one file', () => {
  it('wait for the other’s write lock (as better-sqlite3 did, 5 s) instead of failing at once', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-sqlite-')), 'shared.db');
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const other = new Database(file);
    writer.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    // One thread holds the lock throughout, so the wait ends in "locked", but only after the timeout.
    expect(() => other.exec("INSERT INTO t (v) VALUES ('second')")).toThrow(/locked/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4900);
    writer.exec('COMMIT');
  });
});
