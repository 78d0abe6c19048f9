import {
  DeleteQueryNode,
  InsertQueryNode,
  MergeQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/** A write about to run: the table it changes and, for an UPDATE, the columns it sets. */
export interface Write {
  kind: 'insert' | 'update' | 'delete' | 'merge';
  table: string;
  /** An INSERT that may change existing rows (ON CONFLICT … DO UPDATE, or MERGE). */
  upsert: boolean;
  /** snake_case names; null for INSERT, DELETE and MERGE. */
  columns: string[] | null;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function tableOf(node: OperationNode | undefined): string | null {
  if (!node) return null;
  if (TableNode.is(node)) return snake(node.table.identifier.name);
  // An aliased table (`update active_keys as k`).
  const aliased = (node as { node?: OperationNode }).node;
  return aliased && TableNode.is(aliased) ? snake(aliased.table.identifier.name) : null;
}

function writeOf(node: RootOperationNode): Write | null {
  if (InsertQueryNode.is(node)) {
    const table = tableOf(node.into);
    return table ? { kind: 'insert', table, upsert: Boolean(node.onConflict?.updates ?? node.onDuplicateKey), columns: null } : null;
  }
  if (DeleteQueryNode.is(node)) {
    const table = tableOf(node.from.froms[0]);
    return table ? { kind: 'delete', table, upsert: false, columns: null } : null;
  }
  if (UpdateQueryNode.is(node)) {
    const table = tableOf(node.table);
    const columns = (node.updates ?? []).map((update) => {
      const column = update.column as { column?: { name?: string } };
      return snake(column.column?.name ?? '?');
    });
    return table ? { kind: 'update', table, upsert: false, columns } : null;
  }
  if (MergeQueryNode.is(node)) {
    const table = tableOf(node.into);
    return table ? { kind: 'merge', table, upsert: true, columns: null } : null;
  }
  return null;
}

/**
 * Sees every write a Kysely query makes, as it is sent, so caches of rows can be dropped in one place
 * for every code path that changes them (routes, jobs, the CLI, tests), rather than at each call site.
 * Raw `sql` statements are not seen: only migrations write that way, and they run before any cache fills, and the
 * batched lastUsedAt flush (validation.repository.ts touchKeys), which changes nothing a cache holds.
 */
export class WriteObserver implements KyselyPlugin {
  private readonly listeners = new Set<(write: Write) => void>();

  /** Called synchronously before each write runs; returns the unsubscribe. */
  listen(listener: (write: Write) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (this.listeners.size > 0 && !node.kind.startsWith('Select')) {
      const write = writeOf(node);
      if (write) for (const listener of this.listeners) listener(write);
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}
