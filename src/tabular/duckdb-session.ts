import { mkdir, rm } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { TabularError } from './errors.ts';

/**
 * A throwaway in-memory DuckDB for one file: confined to the work directory (no other file, no network, no
 * extension downloads), with few threads and a memory cap so a worker can run several, and every statement
 * bounded in time. Errors come out with local paths and DuckDB's boilerplate removed.
 */

export interface DuckDbLimits {
  /** Per statement. After it DuckDB is interrupted; if it does not stop, the call is abandoned. */
  timeoutMs: number;
  threads: number;
  memoryLimit: string;
}

export const DEFAULT_DUCKDB_LIMITS: DuckDbLimits = { timeoutMs: 120_000, threads: 2, memoryLimit: '1GB' };

// How long an interrupted statement gets to notice before its promise is given up on.
const INTERRUPT_GRACE_MS = 5_000;

/** A DuckDB statement failed; `message` is already safe to show. */
export class DuckDbStatementError extends Error {
  constructor(
    message: string,
    readonly raw: string,
  ) {
    super(message);
  }

  get isConversionError(): boolean {
    return /could not convert|error when converting|conversion error/i.test(this.raw);
  }
}

export class DuckDbSession {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly directory: string,
    private readonly tempDirectory: string,
    private readonly limits: DuckDbLimits,
  ) {}

  static async open(directory: string, limits: Partial<DuckDbLimits> = {}): Promise<DuckDbSession> {
    const root = resolve(directory);
    const settings = { ...DEFAULT_DUCKDB_LIMITS, ...limits };
    const tempDirectory = `${root}${sep}.duckdb-spill`;
    await mkdir(tempDirectory, { recursive: true });
    const instance = await DuckDBInstance.create(':memory:', {
      threads: String(settings.threads),
      memory_limit: settings.memoryLimit,
      temp_directory: tempDirectory,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const connection = await instance.connect();
    const session = new DuckDbSession(instance, connection, root, tempDirectory, settings);
    try {
      // Order matters: the allow-list must exist before external access is switched off, and the
      // configuration is locked last so no later statement can widen it.
      await session.run(`SET allowed_directories = [${sqlString(root + sep)}]`);
      await session.run('SET enable_external_access = false');
      await session.run('SET lock_configuration = true');
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  async run(sql: string): Promise<void> {
    await this.bounded(() => this.connection.run(sql));
  }

  /** Rows as plain JS values (BIGINT as bigint, DOUBLE as number, VARCHAR as string). */
  async rows(sql: string): Promise<Record<string, unknown>[]> {
    const reader = await this.bounded(() => this.connection.runAndReadAll(sql));
    return reader.getRowObjectsJS() as Record<string, unknown>[];
  }

  /** Closes DuckDB and removes its spill directory, leaving the work directory as the caller had it. */
  async close(): Promise<void> {
    this.connection.closeSync();
    this.instance.closeSync();
    await rm(this.tempDirectory, { recursive: true, force: true });
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    let timedOut = false;
    let interruptTimer: NodeJS.Timeout | undefined;
    let abandonTimer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      interruptTimer = setTimeout(() => {
        timedOut = true;
        this.connection.interrupt();
        abandonTimer = setTimeout(() => reject(new Error('interrupt ignored')), INTERRUPT_GRACE_MS);
      }, this.limits.timeoutMs);
    });
    try {
      return await Promise.race([work(), abandoned]);
    } catch (error) {
      if (timedOut) {
        throw new TabularError('timeout', `Reading the file took longer than ${Math.round(this.limits.timeoutMs / 1000)} seconds`);
      }
      const raw = error instanceof Error ? error.message : String(error);
      throw new DuckDbStatementError(cleanDuckDbMessage(raw, [this.directory]), raw);
    } finally {
      clearTimeout(interruptTimer);
      clearTimeout(abandonTimer);
    }
  }
}

export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

// Lines DuckDB adds for a developer at a SQL prompt: hints, the option dump, the echoed statement.
const BOILERPLATE =
  /^(possible (fixes|solution)|\*|line \d+:|\^|the search space used was|delimiter candidates|quote\/escape candidates|comment candidates|encoding:|[a-z_ ]+ = )/i;

/**
 * The first meaningful lines of a DuckDB error, without its type prefix, without any absolute path
 * (known directories first, then anything path-shaped) and at most 300 characters.
 */
export function cleanDuckDbMessage(raw: string, knownPaths: string[] = []): string {
  let text = raw;
  for (const path of knownPaths.filter(Boolean).sort((a, b) => b.length - a.length)) {
    text = text
      .split(path + sep)
      .join('')
      .split(path)
      .join('');
  }
  // Only where a path can start (line start, after a blank, quote or bracket): `Kapitel/Titel` is data.
  text = text.replace(/(?<=^|[\s"'(=])(?:[A-Za-z]:\\|\/)[^\s"']*/gm, '<file>');
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !BOILERPLATE.test(line));
  const summary = lines
    .slice(0, 3)
    .join(' ')
    .replace(/^[A-Za-z ]*Error: /, '')
    .replace(/\s+/g, ' ');
  return summary.length > 300 ? `${summary.slice(0, 297)}...` : summary || 'DuckDB could not read the file';
}
