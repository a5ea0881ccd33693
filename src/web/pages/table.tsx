/** A cell as text: null shown as a muted mark, everything else as the API gives it (big integers as text). */
function Cell(props: { value: unknown; numeric: boolean }) {
  const { value } = props;
  if (value === null || value === undefined) return <td class="null">null</td>;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return <td class={props.numeric || typeof value === 'number' ? 'num' : undefined}>{text}</td>;
}

const NUMERIC_TYPES = new Set(['integer', 'float']);

/** Rows of a query or the preview, as an accessible table with its column headers. */
export function DataTable(props: {
  columns: string[];
  rows: Array<Record<string, unknown>>;
  caption: string;
  types?: Map<string, string>;
}) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={props.caption}>
      <table class="data">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col">
                {c}
                {props.types?.get(c) && <span class="type">{props.types.get(c)}</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {props.columns.map((c) => (
                <Cell value={row[c]} numeric={NUMERIC_TYPES.has(props.types?.get(c) ?? '')} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
