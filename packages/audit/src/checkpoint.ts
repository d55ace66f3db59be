import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonical-json';

// A checkpoint anchors a project's hash chain outside the database that holds it: "the chain of
// this project reached `seq`, whose record hash is `hash`, at `at`", signed with a key the database
// never sees. Whoever can rewrite the database (disable the append-only trigger, delete the tail,
// rewind the chain head) cannot make the chain agree with a checkpoint written before, nor sign a
// new one.

/** Format version; part of every line and of what is signed. */
export const CHECKPOINT_VERSION = 1;
/** The shortest key accepted: 32 characters (the generated ones are 43, 32 random bytes). */
export const CHECKPOINT_KEY_MIN_LENGTH = 32;

export interface Checkpoint {
  project_id: string;
  seq: number;
  hash: string;
  /** ISO time the checkpoint was made (after the append's commit). */
  at: string;
}

/** One line of a checkpoint log: the checkpoint, the key it was signed with, the signature. */
export interface SignedCheckpoint extends Checkpoint {
  v: typeof CHECKPOINT_VERSION;
  /** Key id (checkpointKeyId): tells "signed with another key" apart from a forged signature. */
  kid: string;
  /** HMAC-SHA256, hex, over canonicalJson of every other field. */
  sig: string;
}

const hex = (length: number) => z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`));

export const signedCheckpointSchema = z.strictObject({
  v: z.literal(CHECKPOINT_VERSION),
  kid: hex(16),
  project_id: z.string().min(1),
  seq: z.number().int().positive(),
  hash: hex(64),
  at: z.iso.datetime(),
  sig: hex(64),
});

/**
 * A short public name of a key: the first 16 hex digits of SHA-256 over a fixed prefix and the key.
 * It reveals nothing an HMAC of the key does not already, and lets verification and startup say
 * "this line was signed with another key" instead of "forged".
 */
export function checkpointKeyId(key: string): string {
  return createHash('sha256')
    .update(`svc-audit-checkpoint-key-id\n${key}`, 'utf8')
    .digest('hex')
    .slice(0, 16);
}

function signatureOf(key: string, unsigned: Omit<SignedCheckpoint, 'sig'>): string {
  return createHmac('sha256', key).update(canonicalJson(unsigned), 'utf8').digest('hex');
}

export function signCheckpoint(key: string, checkpoint: Checkpoint): SignedCheckpoint {
  const unsigned = {
    v: CHECKPOINT_VERSION,
    kid: checkpointKeyId(key),
    project_id: checkpoint.project_id,
    seq: checkpoint.seq,
    hash: checkpoint.hash,
    at: checkpoint.at,
  } as const;
  return { ...unsigned, sig: signatureOf(key, unsigned) };
}

/** The stored form of a checkpoint: canonical JSON, without the line break. */
export function checkpointLine(key: string, checkpoint: Checkpoint): string {
  return canonicalJson(signCheckpoint(key, checkpoint));
}

/** What one complete line of a checkpoint log turned out to be. */
export type CheckpointLineVerdict =
  | { kind: 'valid'; checkpoint: SignedCheckpoint }
  /** It names a project (so it can be held against that project) but cannot be trusted. */
  | { kind: 'forged'; project_id: string; seq?: number; reason: string }
  /** Not a checkpoint at all, or one that does not even say which project it is about. */
  | { kind: 'unreadable'; reason: string };

/** Parses one line (without its line break) and checks its signature with `key`. */
export function readCheckpointLine(key: string, text: string): CheckpointLineVerdict {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'not JSON' };
  }
  const claimed = value as { project_id?: unknown; seq?: unknown } | null;
  const projectId =
    typeof claimed?.project_id === 'string' && claimed.project_id ? claimed.project_id : undefined;
  const parsed = signedCheckpointSchema.safeParse(value);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(line)'))].join(', ');
    const reason = `not a valid checkpoint (${fields})`;
    if (!projectId) return { kind: 'unreadable', reason };
    const seq = typeof claimed?.seq === 'number' ? claimed.seq : undefined;
    return { kind: 'forged', project_id: projectId, ...(seq === undefined ? {} : { seq }), reason };
  }
  const line = parsed.data;
  const forged = (reason: string) =>
    ({ kind: 'forged', project_id: line.project_id, seq: line.seq, reason }) as const;
  const kid = checkpointKeyId(key);
  if (line.kid !== kid)
    return forged(`signed with another key (key id ${line.kid}; the configured key is ${kid})`);
  const { sig, ...unsigned } = line;
  const expected = Buffer.from(signatureOf(key, unsigned), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(sig, 'hex')))
    return forged('the signature does not match its content');
  return { kind: 'valid', checkpoint: line };
}
