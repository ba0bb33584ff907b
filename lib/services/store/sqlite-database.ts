import fs from 'node:fs';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

/** Compiled statements kept per connection. */
const STATEMENTS = 256;

/** A prepared statement whose parameters and rows have the types its caller names. */
export interface Statement<Params extends unknown[] = unknown[], Row = unknown> {
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  run(...params: Params): { changes: number; lastInsertRowid: number | bigint };
}

/** A function run in one transaction; `.immediate` takes the write lock at its start. */
export type Transaction<Args extends unknown[], Result> = ((...args: Args) => Result) & { immediate: (...args: Args) => Result };

export interface OpenOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
}

/**
 * The embedded store's connection: Node's own SQLite (`node:sqlite`), with typed statements and
 * transactions as functions (a transaction inside another is a savepoint of it). Node's module is
 * part of the runtime: nothing is compiled at install, and the SQLite it links is Node's.
 */
export class Database {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #savepoints = 0;

  constructor(file: string, options: OpenOptions = {}) {
    if (options.fileMustExist && !fs.existsSync(file)) throw new Error(`no database at ${file}`);
    // A statement waits up to 5 s for another connection's write lock (a test reading the server's
    // file, a CLI beside the server) instead of failing at once with "database is locked".
    this.#db = new DatabaseSync(file, { readOnly: options.readonly ?? false, timeout: 5000 });
  }

  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): Statement<Params, Row> {
    const statement = this.#statement(sql);
    const values = (params: unknown[]) => params as SQLInputValue[];
    return {
      get: (...params) => statement.get(...values(params)) as Row | undefined,
      all: (...params) => statement.all(...values(params)) as Row[],
      run: (...params) => {
        const result = statement.run(...values(params));
        return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
      },
    };
  }

  /**
   * The store prepares its statements where it runs them, several per message sent. Each is
   * compiled once per connection and kept (at most STATEMENTS, the least recently used going first)
   * instead of compiled again on every call and left to the garbage collector.
   */
  #statement(sql: string): StatementSync {
    const kept = this.#statements.get(sql);
    if (kept) {
      this.#statements.delete(sql);
      this.#statements.set(sql, kept);
      return kept;
    }
    const made = this.#db.prepare(sql);
    this.#statements.set(sql, made);
    if (this.#statements.size > STATEMENTS) this.#statements.delete(this.#statements.keys().next().value!);
    return made;
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** `PRAGMA <setting>`: its rows, or with `simple` the first value of the first row. */
  pragma(setting: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.#db.prepare(`PRAGMA ${setting}`).all();
    if (!options.simple) return rows;
    const first = rows[0];
    return first ? Object.values(first)[0] : undefined;
  }

  function(name: string, options: { deterministic?: boolean }, implementation: (...args: never[]) => unknown): void {
    this.#db.function(name, { deterministic: options.deterministic ?? false }, implementation as (...args: SQLInputValue[]) => SQLInputValue);
  }

  transaction<Args extends unknown[], Result>(body: (...args: Args) => Result): Transaction<Args, Result> {
    const run =
      (begin: string) =>
      (...args: Args) => {
        if (this.#db.isTransaction) return this.#savepoint(() => body(...args));
        this.#db.exec(begin);
        try {
          const result = body(...args);
          this.#db.exec('COMMIT');
          return result;
        } catch (error) {
          if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
          throw error;
        }
      };
    return Object.assign(run('BEGIN'), { immediate: run('BEGIN IMMEDIATE') });
  }

  #savepoint<Result>(body: () => Result): Result {
    const name = `lectern_${++this.#savepoints}`;
    this.#db.exec(`SAVEPOINT ${name}`);
    try {
      const result = body();
      this.#db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.#db.exec(`ROLLBACK TO ${name}`);
      this.#db.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
    }
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
