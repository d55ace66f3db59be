/**
 * A tool's checked result. The executor makes one either from the object a handler returned, or
 * from the JSON text the answer workers made of a large backend answer (answer-workers.ts): that
 * text goes to a REST client as it is, and only an MCP result needs the object back.
 */
export class ToolAnswer {
  #value: Record<string, unknown> | undefined;
  #text: string | undefined;
  readonly #bytes: Buffer | undefined;

  private constructor(value: Record<string, unknown> | undefined, bytes: Buffer | undefined) {
    this.#value = value;
    this.#bytes = bytes;
  }

  static ofValue(value: Record<string, unknown>): ToolAnswer {
    return new ToolAnswer(value, undefined);
  }

  /** UTF-8 JSON of an object that passed the tool's output schema. */
  static ofJson(bytes: Buffer): ToolAnswer {
    return new ToolAnswer(undefined, bytes);
  }

  /** The result as an object (parsed on first use when it came as JSON). */
  get value(): Record<string, unknown> {
    this.#value ??= JSON.parse(this.text) as Record<string, unknown>;
    return this.#value;
  }

  /** The result as JSON text. */
  get text(): string {
    this.#text ??= this.#bytes ? this.#bytes.toString('utf8') : JSON.stringify(this.#value);
    return this.#text;
  }

  /** The JSON bytes, when the result came as JSON: sent as they are, never serialized again. */
  get bytes(): Buffer | undefined {
    return this.#bytes;
  }
}
