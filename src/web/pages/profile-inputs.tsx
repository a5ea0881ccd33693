import type { FieldError } from '../../domain/errors.ts';
import { allowedValues, type ProfileField } from '../../domain/metadata/profiles-fields.ts';
import { controlName, type CustomFormValues } from '../profile-form.ts';

/** A field's error, next to it and tied to it for screen readers (the path is the control's name). */
function Message(props: { path: string; errors: FieldError[] }) {
  const messages = props.errors.filter((e) => e.path === props.path);
  return messages.length ? (
    <p class="field-error" id={`${props.path}-error`}>
      {messages.map((e) => e.message).join('; ')}
    </p>
  ) : null;
}

/** The labels of a closed field's values: its choices' labels, else the vocabulary's IRIs themselves. */
const options = (f: ProfileField) =>
  f.choices?.map((c) => ({ value: c.value, label: c.label ?? c.value })) ?? (f.vocabulary ?? []).map((v) => ({ value: v, label: v }));

const INPUT_TYPES: Partial<Record<ProfileField['type'], string>> = { url: 'url', email: 'email', number: 'number', integer: 'number' };

/** One field's control, as its type and its declarative form (`form.widget`, `form.placeholder`) ask. */
function Control(props: { field: ProfileField; value: string | string[]; prefix?: string; described?: string }) {
  const { field: f, value } = props;
  const id = controlName(f, props.prefix);
  const common = { id, name: id, 'aria-describedby': props.described, placeholder: f.form?.placeholder };
  const current = Array.isArray(value) ? value : [value];
  if (f.type === 'list' && allowedValues(f)) {
    return (
      <fieldset id={id} aria-describedby={props.described}>
        {options(f).map((o) => (
          <label class="check">
            <input type="checkbox" name={id} value={o.value} checked={current.includes(o.value)} /> {o.label}
          </label>
        ))}
      </fieldset>
    );
  }
  if (f.type === 'choice' || f.type === 'boolean') {
    const choices =
      f.type === 'boolean'
        ? [
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]
        : options(f);
    // A stored value the choices no longer hold stays selectable: saving must not change it unasked.
    const shown =
      value && !choices.some((c) => c.value === value)
        ? [{ value: String(value), label: `${String(value)} (no longer a choice)` }, ...choices]
        : choices;
    return (
      <select {...common}>
        <option value="">—</option>
        {shown.map((c) => (
          <option value={c.value} selected={c.value === value}>
            {c.label}
          </option>
        ))}
      </select>
    );
  }
  if (f.type === 'list' || f.form?.widget === 'textarea') {
    return (
      <textarea {...common} rows={f.type === 'list' ? 4 : 6}>
        {Array.isArray(value) ? value.join('\n') : value}
      </textarea>
    );
  }
  const step = f.type === 'integer' ? '1' : f.type === 'number' ? 'any' : undefined;
  return (
    <input
      {...common}
      type={INPUT_TYPES[f.type] ?? 'text'}
      step={step}
      min={f.min}
      max={f.max}
      value={Array.isArray(value) ? value.join(', ') : value}
    />
  );
}

/**
 * The profile's fields of a dataset, each with its label, help text and error; then the values the
 * dataset holds outside its profile, read-only (a field since removed): they are kept on save.
 */
export function ProfileInputs(props: {
  fields: ProfileField[];
  values: CustomFormValues;
  outside: Array<[string, unknown]>;
  errors: FieldError[];
  /** Where the controls' names start: a resource's are `resource.customFields.<name>`. */
  prefix?: string;
  legend?: string;
}) {
  if (props.fields.length === 0 && props.outside.length === 0) return null;
  return (
    <fieldset class="profile-fields">
      <legend>{props.legend ?? 'More about this dataset'}</legend>
      {props.fields.map((f) => {
        const path = controlName(f, props.prefix);
        const hint = f.help ? `${path}-hint` : undefined;
        const error = props.errors.some((e) => e.path === path) ? `${path}-error` : undefined;
        return (
          <>
            <label for={path}>
              {f.label}
              {f.required && <span class="muted"> (needed to publish)</span>}
            </label>
            <Control
              field={f}
              value={props.values[f.name] ?? ''}
              prefix={props.prefix}
              described={[hint, error].filter(Boolean).join(' ') || undefined}
            />
            {f.help && (
              <p class="hint" id={hint}>
                {f.help}
              </p>
            )}
            <Message path={path} errors={props.errors} />
          </>
        );
      })}
      {props.outside.length > 0 && (
        <div class="outside-profile">
          <p class="muted">Kept from an earlier profile (not editable here; saving keeps them):</p>
          <dl>
            {props.outside.map(([key, value]) => (
              <>
                <dt>{key}</dt>
                <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
              </>
            ))}
          </dl>
        </div>
      )}
    </fieldset>
  );
}
