/** @jsxRuntime automatic @jsxImportSource preact */

/** A block of text with a labelled copy button (console.js copies it; without script, select it). */
export function Copyable({ id, label, text }: { id: string; label: string; text: string }) {
  return (
    <div class="copyable">
      <div class="copyable-head">
        <h3 id={`${id}-label`}>{label}</h3>
        <button type="button" class="secondary copy" data-copy={id} aria-describedby={`${id}-label`}>
          Copy
        </button>
      </div>
      <pre>
        <code id={id}>{text}</code>
      </pre>
    </div>
  );
}
