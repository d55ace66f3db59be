/**
 * An investigation guide: which tools to call, in which order, with which arguments, and what to
 * look for in each answer. Served over MCP as a prompt and as a skill (the Skills extension), both
 * written from this one record. Steps name tools and parameters as data, so a meta-test can check
 * that each tool exists and each parameter is in its input schema: a renamed tool or field fails a
 * test instead of misleading a model.
 */
export interface InvestigationGuide {
  /** The prompt's name: lowercase words with dashes. */
  readonly name: string;
  readonly title: string;
  /** One or two sentences: when to use it. */
  readonly description: string;
  /** What the client fills in (release versions, a user id); `{name}` in a step's values. */
  readonly arguments: readonly GuideArgument[];
  readonly steps: readonly GuideStep[];
}

export interface GuideArgument {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /**
   * For an optional argument left out: what its steps say instead (`<a session_id from step 1>`).
   * Without one, a step parameter holding only the argument is dropped (the tool's default applies).
   */
  readonly fallback?: string;
}

export interface GuideStep {
  readonly tool: string;
  /** The call's arguments: parameter names of the tool's input; `{argument}` is filled in. */
  readonly args: Readonly<Record<string, string | number | boolean>>;
  /** What to read in the answer and what it decides next. */
  readonly lookFor: string;
}

/** Identity that types a guide's literal (one place to check its shape). */
export function defineGuide(guide: InvestigationGuide): InvestigationGuide {
  return guide;
}
