import { randomUUID } from 'node:crypto';
import { NotFoundError } from '@svc/errors';
import {
  createPostgres,
  type Migration,
  type Postgres,
  type PostgresOptions,
  runMigrations,
} from '@svc/postgres';
import type { ToolStep } from './gateway-tools';

// Conversations with the assistant, kept per person and project: a reload, another tab or another
// day shows them again. A turn (the question, the answer, its tool calls) is one row written once
// the answer is complete: a stopped or failed turn leaves nothing half-saved. Migration ids are
// prefixed, so the console may share a PostgreSQL database with identity.

const MIGRATIONS: Migration[] = [
  {
    id: 'console_0001_assistant_conversations',
    sql: `
      CREATE TABLE assistant_conversations (
        conversation_id text PRIMARY KEY,
        user_id text NOT NULL,
        project_id text NOT NULL,
        title text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX assistant_conversations_owner
        ON assistant_conversations (user_id, project_id, updated_at DESC);
      CREATE TABLE assistant_turns (
        conversation_id text NOT NULL REFERENCES assistant_conversations (conversation_id) ON DELETE CASCADE,
        seq integer NOT NULL,
        question text NOT NULL,
        answer text NOT NULL,
        steps jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      );
    `,
  },
];

export interface Turn {
  seq: number;
  question: string;
  /** The model's Markdown (rendered safe when shown). */
  answer: string;
  steps: ToolStep[];
  created_at: string;
}

export interface Conversation {
  conversation_id: string;
  title: string;
  updated_at: string;
}

export interface ConversationStore {
  list(owner: Owner): Promise<Conversation[]>;
  /** The conversation with its turns; undefined when it is not this person's on this project. */
  get(owner: Owner, conversationId: string): Promise<(Conversation & { turns: Turn[] }) | undefined>;
  /** Saves a complete turn (starting the conversation when `conversationId` is undefined). */
  saveTurn(
    owner: Owner,
    conversationId: string | undefined,
    turn: { question: string; answer: string; steps: ToolStep[] },
    now: Date,
  ): Promise<string>;
  close(): Promise<void>;
}

export interface Owner {
  userId: string;
  projectId: string;
}

/** Conversations listed at most (the newest). */
const LISTED = 30;
const TITLE_CHARS = 80;

/** The store, opened (and migrated) on first use: a console without a model never opens it. */
export function conversationStore(options: PostgresOptions): ConversationStore {
  let opened: Promise<Postgres> | undefined;
  const db = () => {
    opened ??= createPostgres(options).then(async (pg) => {
      await runMigrations(pg, MIGRATIONS);
      return pg;
    });
    return opened;
  };
  const iso = (d: Date | string) => new Date(d).toISOString();
  return {
    async list(owner) {
      const { rows } = await (await db()).query<{ conversation_id: string; title: string; updated_at: Date }>(
        `SELECT conversation_id, title, updated_at FROM assistant_conversations
         WHERE user_id = $1 AND project_id = $2 ORDER BY updated_at DESC LIMIT ${LISTED}`,
        [owner.userId, owner.projectId],
      );
      return rows.map((r) => ({ ...r, updated_at: iso(r.updated_at) }));
    },
    async get(owner, conversationId) {
      const pg = await db();
      const { rows } = await pg.query<{ conversation_id: string; title: string; updated_at: Date }>(
        `SELECT conversation_id, title, updated_at FROM assistant_conversations
         WHERE conversation_id = $1 AND user_id = $2 AND project_id = $3`,
        [conversationId, owner.userId, owner.projectId],
      );
      if (!rows[0]) return undefined;
      const turns = await pg.query<Turn & { created_at: Date }>(
        'SELECT seq, question, answer, steps, created_at FROM assistant_turns WHERE conversation_id = $1 ORDER BY seq',
        [conversationId],
      );
      return {
        ...rows[0],
        updated_at: iso(rows[0].updated_at),
        turns: turns.rows.map((t) => ({ ...t, created_at: iso(t.created_at) })),
      };
    },
    async saveTurn(owner, conversationId, turn, now) {
      return (await db()).transaction(async (tx) => {
        let id = conversationId;
        if (id === undefined) {
          id = `conv_${randomUUID()}`;
          await tx.query(
            `INSERT INTO assistant_conversations (conversation_id, user_id, project_id, title, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)`,
            [id, owner.userId, owner.projectId, turn.question.slice(0, TITLE_CHARS), now],
          );
        } else {
          const { rows } = await tx.query(
            `UPDATE assistant_conversations SET updated_at = $4
             WHERE conversation_id = $1 AND user_id = $2 AND project_id = $3 RETURNING conversation_id`,
            [id, owner.userId, owner.projectId, now],
          );
          if (rows.length === 0) throw new NotFoundError('No such conversation.');
        }
        await tx.query(
          `INSERT INTO assistant_turns (conversation_id, seq, question, answer, steps, created_at)
           VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM assistant_turns WHERE conversation_id = $1),
                   $2, $3, $4::jsonb, $5)`,
          [id, turn.question, turn.answer, JSON.stringify(turn.steps), now],
        );
        return id;
      });
    },
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
