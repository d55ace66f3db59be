/**
 * What one turn may spend: tool calls, and characters of tool results sent to the model. A result
 * past what is left is cut, with a note the model reads (so it knows the answer is partial and
 * how to ask for less), rather than refused: a part of a large answer is still evidence.
 */
export class TurnBudget {
  private calls = 0;
  private chars = 0;

  constructor(
    readonly maxCalls: number,
    readonly maxChars: number,
  ) {}

  /** Takes one tool call from the budget; false once it is spent (the call is not made). */
  takeCall(): boolean {
    if (this.calls >= this.maxCalls) return false;
    this.calls += 1;
    return true;
  }

  get callsMade(): number {
    return this.calls;
  }

  /** The text to send: all of it while the budget lasts, else its head and a note. */
  fit(text: string): { text: string; cut: boolean } {
    const left = Math.max(0, this.maxChars - this.chars);
    if (text.length <= left) {
      this.chars += text.length;
      return { text, cut: false };
    }
    this.chars = this.maxChars;
    const head = text.slice(0, left);
    const note =
      `[cut: this result has ${text.length} characters and only ${left} fit in what is left of this ` +
      "turn's budget of " +
      `${this.maxChars}. Do not guess the rest: answer from what is here, or ask a narrower ` +
      'question (filters, a smaller limit) in another call.]';
    return { text: `${head}\n${note}`, cut: true };
  }
}

/** What the model is told instead of a call past the turn's budget of tool calls. */
export const callBudgetSpent = (max: number) =>
  `[not called: this turn's budget of ${max} tool calls is spent. Answer from the results you have, ` +
  'and say what is left to check.]';
