import { MAX_RESULT_CHARS_RANGE } from '@svc/tool-kit';
import { RESULT_BUDGET_META_KEY, toMcpTool } from '@svc/tool-server';
import { allTools } from './catalog';
import { SPEC_TOOL_NAMES } from './spec-names';
import { catalogViews } from './views';

// Every MCP client loads the whole tools/list into its context on every connection. Budget: 48 KB
// for all 36 tools, measured as MCP serves the list: with the `_meta` naming each view (MCP Apps)
// on the tools that have one. While the catalog is not complete, the tools it has may use their share only
// (48 KB x n / 36), so the last ones still fit. docs/decisions.md, "tools/list size", says what was
// trimmed and why.
const BUDGET_BYTES = 48 * 1024;
const ALL_TOOLS = Object.values(SPEC_TOOL_NAMES).flat().length;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('tools/list size', () => {
  // As served: the size hint on every tool included (the client host reads it, but every byte of
  // the list is sent on every connection).
  const served = allTools.map((tool) => toMcpTool(tool, catalogViews.toolMetas[tool.name]));
  const total = bytes({ tools: served });

  it(`fits the budget: ${BUDGET_BYTES} bytes for ${ALL_TOOLS} tools, pro rata until all exist`, () => {
    const share = Math.floor((BUDGET_BYTES * allTools.length) / ALL_TOOLS);
    expect(total).toBeLessThanOrEqual(share);
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('measures the list with the views: each tool that has one names it', () => {
    const named = served
      .filter((t) => Object.keys(t._meta ?? {}).some((k) => k !== RESULT_BUDGET_META_KEY))
      .map((t) => t.name);
    expect(named.sort()).toEqual(Object.keys(catalogViews.toolMetas).sort());
  });

  it("declares every tool's result budget as its size hint, within the range a call may ask for", () => {
    const [min, max] = MAX_RESULT_CHARS_RANGE;
    for (const [i, tool] of served.entries()) {
      const hint = tool._meta?.[RESULT_BUDGET_META_KEY];
      expect([tool.name, hint]).toEqual([tool.name, allTools[i]!.maxResultChars]);
      expect(Number.isInteger(hint) && (hint as number) >= min && (hint as number) <= max).toBe(true);
    }
  });

  it('spends it on descriptions and inputs: no tool takes more than 3 KB', () => {
    const large = served.filter((t) => bytes(t) > 3 * 1024).map((t) => `${t.name}: ${bytes(t)} bytes`);
    expect(large).toEqual([]);
  });
});
