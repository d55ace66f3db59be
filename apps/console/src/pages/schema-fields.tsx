/** @jsxRuntime automatic @jsxImportSource preact */
import type { ComponentChildren } from 'preact';
import { type FieldError, type FormField, type FormValues, isChecked } from '../schema-form';
import { CodeSpans } from './code-spans';

// The controls of a generated tool form (schema-form.ts builds the model). Every control has a
// label naming the input property; descriptions are help text tied to it by aria-describedby; a
// conversion error marks the control aria-invalid and says what is wrong next to it.

/** A control's id: its name (whitespace made `_`, ids hold none) under a prefix of its own. */
export const fieldId = (name: string) => `field-${name.replace(/\s/g, '_')}`;
const idOf = (field: FormField) => fieldId(field.name);

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.at(-1) : value) ?? '';
const many = (value: string | string[] | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

interface FieldProps {
  field: FormField;
  values: FormValues | undefined;
  errors: FieldError[];
  /** The browser enforces `required` only where every enclosing object is required too. */
  enforceRequired: boolean;
}

function Help({ field, error }: { field: FormField; error: FieldError | undefined }) {
  return (
    <>
      {error ? (
        <small id={`${idOf(field)}-error`} class="field-error">
          {`${field.key} ${error.message}`}
        </small>
      ) : null}
      {field.description ? (
        <small id={`${idOf(field)}-help`}>
          <CodeSpans text={field.description} />
        </small>
      ) : null}
    </>
  );
}

function describedBy(field: FormField, error: FieldError | undefined): string | undefined {
  const ids = [
    ...(error ? [`${idOf(field)}-error`] : []),
    ...(field.description ? [`${idOf(field)}-help`] : []),
  ];
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function LabelText({ field, hint }: { field: FormField; hint?: string }) {
  return (
    <>
      <code>{field.key}</code>
      {field.required ? <span class="required"> (required)</span> : null}
      {hint ? <span class="muted"> {hint}</span> : null}
    </>
  );
}

function Labelled({
  field,
  hint,
  error,
  children,
}: {
  field: FormField;
  hint?: string;
  error: FieldError | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class="schema-field">
      <label for={idOf(field)}>
        <LabelText field={field} hint={hint} />
      </label>
      {children}
      <Help field={field} error={error} />
    </div>
  );
}

function Field({ field, values, errors, enforceRequired }: FieldProps) {
  const error = errors.find((e) => e.name === field.name);
  const value = single(values?.[field.name]);
  const common = {
    id: idOf(field),
    name: field.name,
    required: enforceRequired && field.required,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy(field, error),
  };
  switch (field.kind) {
    case 'text':
      return (
        <Labelled field={field} error={error}>
          {field.multiline ? (
            <textarea {...common} rows={4} maxLength={field.maxLength} placeholder={field.placeholder}>
              {value}
            </textarea>
          ) : field.format === 'date' ? (
            <input {...common} type="date" value={value} />
          ) : (
            <input
              {...common}
              type="text"
              value={value}
              minLength={field.minLength}
              maxLength={field.maxLength}
              placeholder={field.placeholder}
            />
          )}
        </Labelled>
      );
    case 'number':
      return (
        <Labelled field={field} error={error} hint={field.integer ? '(whole number)' : '(number)'}>
          <input
            {...common}
            type="number"
            inputMode={field.integer ? 'numeric' : 'decimal'}
            step={field.integer ? 1 : 'any'}
            min={field.min}
            max={field.max}
            value={value}
            placeholder={field.placeholder}
          />
        </Labelled>
      );
    case 'select':
      return (
        <Labelled field={field} error={error}>
          <select {...common}>
            <option value="">
              {field.placeholder === undefined ? '(not set)' : `(default: ${field.placeholder})`}
            </option>
            {field.choices.map((c) => (
              <option key={c.label} value={c.label} selected={c.label === value}>
                {c.label}
              </option>
            ))}
          </select>
        </Labelled>
      );
    case 'multiselect': {
      const chosen = new Set(many(values?.[field.name]));
      return (
        <Labelled field={field} error={error} hint="(choose any; Ctrl or ⌘ for more than one)">
          <select {...common} multiple size={Math.min(field.choices.length, 6)}>
            {field.choices.map((c) => (
              <option key={c.label} value={c.label} selected={chosen.has(c.label)}>
                {c.label}
              </option>
            ))}
          </select>
        </Labelled>
      );
    }
    case 'lines':
      return (
        <Labelled field={field} error={error} hint="(one per line)">
          <textarea {...common} rows={4} placeholder={field.placeholder}>
            {value}
          </textarea>
        </Labelled>
      );
    case 'checkbox':
      // Pico's pattern: the label wraps its checkbox. Unchecked sends nothing (schema-form.ts).
      return (
        <div class="schema-field">
          <label for={idOf(field)}>
            <input
              {...common}
              required={false}
              type="checkbox"
              value="true"
              checked={isChecked(field, values)}
            />
            <LabelText field={field} />
          </label>
          <Help field={field} error={error} />
        </div>
      );
    case 'fieldset':
      return (
        <fieldset class="schema-fieldset" aria-describedby={describedBy(field, undefined)}>
          <legend>
            <LabelText field={field} />
          </legend>
          {field.description ? (
            <small id={`${idOf(field)}-help`}>
              <CodeSpans text={field.description} />
            </small>
          ) : null}
          <SchemaFields
            fields={field.fields}
            values={values}
            errors={errors}
            enforceRequired={enforceRequired && field.required}
          />
        </fieldset>
      );
    case 'json':
      return (
        <Labelled field={field} error={error} hint="(JSON)">
          <textarea {...common} rows={4} class="code" spellcheck={false} placeholder={field.placeholder}>
            {value}
          </textarea>
        </Labelled>
      );
  }
}

export function SchemaFields({
  fields,
  values,
  errors,
  enforceRequired = true,
}: {
  fields: FormField[];
  values: FormValues | undefined;
  errors: FieldError[];
  enforceRequired?: boolean;
}) {
  return (
    <>
      {fields.map((field) => (
        <Field
          key={field.name}
          field={field}
          values={values}
          errors={errors}
          enforceRequired={enforceRequired}
        />
      ))}
    </>
  );
}
