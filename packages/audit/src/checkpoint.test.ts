import { createHmac } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { checkpointKeyId, checkpointLine, readCheckpointLine, signCheckpoint } from './checkpoint';

const KEY = 'k'.repeat(40);
const OTHER_KEY = 'o'.repeat(40);
const checkpoint = { project_id: 'prj_1', seq: 7, hash: 'a'.repeat(64), at: '2030-01-01T00:00:00.000Z' };

describe('checkpoints', () => {
  it('signs HMAC-SHA256 over the canonical JSON of every field but sig', () => {
    const signed = signCheckpoint(KEY, checkpoint);
    const { sig, ...unsigned } = signed;
    expect(unsigned).toEqual({ v: 1, kid: checkpointKeyId(KEY), ...checkpoint });
    const text =
      `{"at":"2030-01-01T00:00:00.000Z","hash":"${'a'.repeat(64)}","kid":"${checkpointKeyId(KEY)}",` +
      `"project_id":"prj_1","seq":7,"v":1}`;
    expect(canonicalJson(unsigned)).toBe(text);
    expect(sig).toBe(createHmac('sha256', KEY).update(text).digest('hex'));
    expect(checkpointLine(KEY, checkpoint)).toBe(canonicalJson(signed));
    expect(checkpointLine(KEY, checkpoint)).not.toContain('\n');
  });

  it('gives each key its own 16-digit id', () => {
    expect(checkpointKeyId(KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(checkpointKeyId(OTHER_KEY)).not.toBe(checkpointKeyId(KEY));
  });

  it('reads back a line it wrote', () => {
    expect(readCheckpointLine(KEY, checkpointLine(KEY, checkpoint))).toEqual({
      kind: 'valid',
      checkpoint: signCheckpoint(KEY, checkpoint),
    });
  });

  it('calls a changed field, a changed signature or another key forged, naming the project', () => {
    const signed = signCheckpoint(KEY, checkpoint);
    const moved = JSON.stringify({ ...signed, seq: 9 });
    expect(readCheckpointLine(KEY, moved)).toEqual({
      kind: 'forged',
      project_id: 'prj_1',
      seq: 9,
      reason: 'the signature does not match its content',
    });
    const resigned = JSON.stringify({ ...signed, sig: 'b'.repeat(64) });
    expect(readCheckpointLine(KEY, resigned)).toMatchObject({ kind: 'forged', project_id: 'prj_1' });
    const verdict = readCheckpointLine(KEY, checkpointLine(OTHER_KEY, checkpoint));
    expect(verdict).toMatchObject({ kind: 'forged', project_id: 'prj_1', seq: 7 });
    expect(verdict.kind === 'forged' && verdict.reason).toContain(
      `signed with another key (key id ${checkpointKeyId(OTHER_KEY)}`,
    );
  });

  it('calls a malformed line that names a project forged, and anything else unreadable', () => {
    const signed = signCheckpoint(KEY, checkpoint);
    expect(readCheckpointLine(KEY, JSON.stringify({ ...signed, seq: '7' }))).toMatchObject({
      kind: 'forged',
      project_id: 'prj_1',
      reason: 'not a valid checkpoint (seq)',
    });
    expect(readCheckpointLine(KEY, JSON.stringify({ ...signed, extra: 1 }))).toMatchObject({
      kind: 'forged',
    });
    expect(readCheckpointLine(KEY, '{"project_id":')).toEqual({ kind: 'unreadable', reason: 'not JSON' });
    expect(readCheckpointLine(KEY, '[]')).toMatchObject({ kind: 'unreadable' });
    expect(readCheckpointLine(KEY, 'null')).toMatchObject({ kind: 'unreadable' });
    expect(readCheckpointLine(KEY, '')).toEqual({ kind: 'unreadable', reason: 'not JSON' });
  });
});
