import type { ColumnType, TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import type { CommentRecord } from './conversation-records.js';

/** COLUMNS: the comment, its author (LEFT JOIN users: gone once deleted) and its mentions as objects. */
type CommentRow = TableRow<'conversation_comments', 'id' | 'conversation_id' | 'author_id' | 'text' | 'created_at'> & {
  author_username: ColumnType<'users', 'username'> | null;
  author_first_name: ColumnType<'users', 'first_name'>;
  author_last_name: ColumnType<'users', 'last_name'>;
  mentions: Array<{ id: string; username: string }>;
};

const toRecord = (r: CommentRow): CommentRecord => ({
  id: r.id,
  conversationId: r.conversation_id,
  author: r.author_id && r.author_username ? { id: r.author_id, username: r.author_username, firstName: r.author_first_name, lastName: r.author_last_name } : null,
  text: r.text,
  mentions: r.mentions,
  createdAt: r.created_at,
});

// Mentioned users who have been deleted since drop out of the list (their ids stay in the row).
const COLUMNS = `c.id, c.conversation_id, c.author_id, u.username AS author_username, u.first_name AS author_first_name,
  u.last_name AS author_last_name, c.text, c.created_at,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', mu.id, 'username', mu.username) ORDER BY mu.username), '[]'::jsonb)
     FROM users mu WHERE mu.id = ANY(c.mentions)) AS mentions`;

/** Internal comments of conversations (migration 0033): rows only, rights are the service's. */
export class CommentRepository {
  constructor(private readonly sql: Sql) {}

  /** Every comment of the conversation, oldest first (a conversation's discussion is short). */
  async list(conversationId: string, tx?: Tx): Promise<CommentRecord[]> {
    const rows = await this.sql.select<CommentRow>(
      `SELECT ${COLUMNS} FROM conversation_comments c LEFT JOIN users u ON u.id = c.author_id
        WHERE c.conversation_id = $conversationId ORDER BY c.created_at, c.id`,
      { conversationId },
      tx,
    );
    return rows.map(toRecord);
  }

  async create(conversationId: string, authorId: string, text: string, mentions: readonly string[], tx: Tx): Promise<CommentRecord> {
    const row = await this.sql.one<CommentRow>(
      `WITH added AS (INSERT INTO conversation_comments (conversation_id, author_id, text, mentions)
                      VALUES ($conversationId, $authorId, $text, $mentions::uuid[]) RETURNING *)
       SELECT ${COLUMNS} FROM added c LEFT JOIN users u ON u.id = c.author_id`,
      { conversationId, authorId, text, mentions },
      tx,
    );
    return toRecord(row!);
  }

  async find(conversationId: string, commentId: string, tx?: Tx): Promise<{ authorId: string | null } | undefined> {
    const row = await this.sql.one<{ author_id: string | null }>(
      'SELECT author_id FROM conversation_comments WHERE id = $commentId AND conversation_id = $conversationId',
      { conversationId, commentId },
      tx,
    );
    return row && { authorId: row.author_id };
  }

  remove(commentId: string, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM conversation_comments WHERE id = $commentId', { commentId }, tx);
  }
}
