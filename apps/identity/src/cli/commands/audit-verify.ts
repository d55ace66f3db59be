import type { AuditVerification, ProjectVerification } from '../../checkpoints/verify';
import { type Command, usage } from '../command';

/** Every project's audit chain (or one) against the checkpoint log: exit 1 when any does not verify. */
export const auditVerify: Command = {
  name: 'audit verify',
  positionals: 2,
  async run({ values: v }, call) {
    if (v.project === '') throw usage('--project needs a project id');
    const query = v.project === undefined ? '' : `?project_id=${encodeURIComponent(v.project)}`;
    const r = await call<AuditVerification | ProjectVerification>('GET', `/internal/v1/audit/verify${query}`);
    return { json: r, text: verificationText(r), ...(r.ok ? {} : { exitCode: 1 }) };
  },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line per project, then the log's warnings and unreadable lines, then the verdict. */
function verificationText(r: AuditVerification | ProjectVerification): string {
  const projects = 'projects' in r ? r.projects : [r];
  const lines: string[] = [];
  for (const p of projects) {
    if (p.ok) {
      const anchored = p.checkpoint
        ? `checkpoint seq ${p.checkpoint.seq} at ${p.checkpoint.at}`
        : 'no checkpoint';
      lines.push(`ok     ${p.project_id}  ${plural(p.checked, 'record')}, ${anchored}`);
      continue;
    }
    const at = p.broken_at_seq === undefined ? '' : ` at seq ${p.broken_at_seq}`;
    lines.push(`BROKEN ${p.project_id}  ${p.code ?? 'broken'}${at}: ${p.reason ?? 'the chain is broken'}`);
    if (p.missing_from_seq !== undefined && p.missing_to_seq !== undefined) {
      lines.push(`       missing seq ${p.missing_from_seq}-${p.missing_to_seq}`);
    }
    // The first problem is the line above; the others follow it.
    for (const other of (p.problems ?? []).slice(1)) {
      const otherAt = other.broken_at_seq === undefined ? '' : ` at seq ${other.broken_at_seq}`;
      lines.push(`       also ${other.code}${otherAt}: ${other.reason}`);
    }
  }
  if (!('projects' in r)) {
    for (const warning of r.warnings ?? []) lines.push(`warning: ${warning}`);
    lines.push(r.ok ? `ok: ${r.project_id} verified` : `BROKEN: ${r.project_id} failed verification`);
    return lines.join('\n');
  }
  const log = r.checkpoint_log;
  for (const warning of log.warnings) lines.push(`warning: ${warning}`);
  for (const u of log.unreadable) lines.push(`unreadable: line ${u.line} of ${log.location}: ${u.reason}`);
  const unlisted = log.unreadable_lines - log.unreadable.length;
  if (unlisted > 0) lines.push(`unreadable: ${plural(unlisted, 'more line')} of ${log.location}`);
  if (r.ok) {
    lines.push(
      `ok: ${plural(projects.length, 'project')} verified against ${log.location} (${plural(log.lines, 'checkpoint line')})`,
    );
  } else {
    const broken = projects.filter((p) => !p.ok).length;
    const why: string[] = [];
    if (broken > 0) why.push(`${broken} of ${plural(projects.length, 'project')} failed verification`);
    if (log.unreadable_lines > 0)
      why.push(`${plural(log.unreadable_lines, 'line')} of the checkpoint log cannot be read`);
    lines.push(`BROKEN: ${why.join('; ')}`);
  }
  return lines.join('\n');
}
