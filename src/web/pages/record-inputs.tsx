import type { FieldError } from '../../domain/errors.ts';
import { ACCESS_LEVELS } from '../../domain/metadata/values.ts';
import { DATASET_RECORD } from '../../domain/metadata/dataset-record.ts';
import { RECORD_INPUTS, type RecordFormValues } from '../record-form.ts';

const errorsAt = (key: string, errors: FieldError[]) => errors.filter((e) => e.path === key || e.path.startsWith(`${key}.`));

/**
 * The metadata record's inputs the form can hold exactly (src/web/record-form.ts), each with its hint
 * and its errors (a path under the key, `temporal.0.end`, shows at the key's control).
 */
export function RecordInputs(props: { values: RecordFormValues; errors: FieldError[] }) {
  const shown = RECORD_INPUTS.filter((i) => i.key in props.values);
  return (
    <fieldset class="record-fields">
      <legend>Metadata record (DCAT)</legend>
      {shown.map((i) => {
        const value = props.values[i.key] ?? '';
        const errors = errorsAt(i.key, props.errors);
        const described = [`${i.key}-hint`, errors.length ? `${i.key}-error` : ''].filter(Boolean).join(' ');
        const common = { id: i.key, name: i.key, 'aria-describedby': described };
        return (
          <>
            <label for={i.key}>{i.label}</label>
            {i.kind === 'accessLevel' || i.kind === 'boolean' ? (
              <select {...common}>
                <option value="">—</option>
                {(i.kind === 'boolean' ? ['true', 'false'] : ACCESS_LEVELS).map((v) => (
                  <option value={v} selected={v === value}>
                    {v === 'true' ? 'Yes' : v === 'false' ? 'No' : v}
                  </option>
                ))}
              </select>
            ) : i.kind === 'text' || i.kind === 'number' || i.kind === 'bbox' ? (
              <input {...common} value={value} />
            ) : (
              <textarea {...common} rows={i.kind === 'longText' ? 4 : 3}>
                {value}
              </textarea>
            )}
            <p class="hint" id={`${i.key}-hint`}>
              {DATASET_RECORD[i.key].about}
            </p>
            {errors.length > 0 && (
              <p class="field-error" id={`${i.key}-error`}>
                {errors.map((e) => (e.path === i.key ? e.message : `${e.path}: ${e.message}`)).join('; ')}
              </p>
            )}
          </>
        );
      })}
    </fieldset>
  );
}
