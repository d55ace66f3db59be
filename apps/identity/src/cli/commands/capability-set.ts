import { type Command, required, usage } from '../command';

const CAPABILITIES = ['vis_trace', 'vis_recall', 'vis_ai_verifier'];

export const capabilitySet: Command = {
  name: 'capability set',
  positionals: 4,
  async run(args, call) {
    const org = required(args.values.org, '--org');
    const [, , capability, state] = args.positionals as [string, string, string, string];
    if (!CAPABILITIES.includes(capability)) throw usage(`unknown capability "${capability}"`);
    if (state !== 'on' && state !== 'off') throw usage('the capability state must be on or off');
    const r = await call<{ org_id: string; capabilities: string[] }>(
      'PUT',
      `/internal/v1/admin/orgs/${encodeURIComponent(org)}/capabilities/${capability}`,
      { enabled: state === 'on' },
    );
    return { json: r, text: `org ${r.org_id} capabilities: ${r.capabilities.join(', ') || '(none)'}` };
  },
};
