import type { ComponentChildren } from 'preact';
import type { Period, Place } from '../../domain/metadata/coverage.ts';
import type { Extra } from '../../domain/metadata/extras.ts';
import { CoverageMap } from '../coverage-svg.tsx';

/**
 * The metadata record on the dataset and resource pages: each key that is set, labelled, with its value
 * as people read it (links for web addresses, a concept by its label, an agent with the organizations
 * above it); the extras and profile values as they are. All of it may come from a harvested source, so
 * it is only ever text for Preact to escape, and only http(s) addresses become links, marked as not ours.
 */

const isWebUrl = (v: string) => /^https?:\/\/\S+$/i.test(v);

/** A web address as a link (rel: a stranger's link, not endorsed), anything else as text. */
export function TextOrLink(props: { value: string; children?: ComponentChildren }) {
  return isWebUrl(props.value) ? (
    <a href={props.value} rel="nofollow ugc noopener">
      {props.children ?? props.value}
    </a>
  ) : (
    <>{props.children ?? props.value}</>
  );
}

type Shape = Record<string, unknown>;
const isShape = (v: unknown): v is Shape => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A concept, agent or contact by its name or label, linked to its IRI; with its other parts after it. */
function Thing(props: { value: Shape }) {
  const v = props.value;
  const name = [v.label, v.name, v.notation, v.url, v.uri, v.relation].find((x) => typeof x === 'string') as string | undefined;
  const link = [v.uri, v.url, v.relation].find((x) => typeof x === 'string' && isWebUrl(x)) as string | undefined;
  const shown = new Set(['label', 'name', 'notation']);
  if (link === v.uri) shown.add('uri');
  if (link === v.url) shown.add('url');
  if (link === v.relation) shown.add('relation');
  const rest = Object.entries(v).filter(([k, x]) => !shown.has(k) && x !== null && x !== undefined && k !== 'subOrganizationOf');
  return (
    <>
      {name && (link ? <TextOrLink value={link}>{name}</TextOrLink> : name)}
      {rest.map(([k, x]) =>
        k === 'email' && typeof x === 'string' ? (
          <>
            {' '}
            <a href={`mailto:${x}`}>{x}</a>
          </>
        ) : (
          <>
            {' '}
            <span class="muted">{`${k}:`}</span> <Value value={x} />
          </>
        ),
      )}
      {isShape(v.subOrganizationOf) && (
        <>
          {', part of '}
          <Thing value={v.subOrganizationOf} />
        </>
      )}
    </>
  );
}

/** Any record value: text (linked when a web address), a yes/no, a list, or a shape. */
export function Value(props: { value: unknown }) {
  const v = props.value;
  if (typeof v === 'string') return <TextOrLink value={v} />;
  if (typeof v === 'boolean') return <>{v ? 'Yes' : 'No'}</>;
  if (typeof v === 'number') return <>{String(v)}</>;
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== 'object')) {
      return (
        <>
          {v.map((x, i) => (
            <>
              {i > 0 && ', '}
              <Value value={x} />
            </>
          ))}
        </>
      );
    }
    return (
      <ul class="plain">
        {v.map((x) => (
          <li>
            <Value value={x} />
          </li>
        ))}
      </ul>
    );
  }
  if (isShape(v)) return <Thing value={v} />;
  return null;
}

/** A period as people say it: "2010 to 2019-12-31", "from 2021", "until 1999". */
export const periodText = (p: Period) => (p.start && p.end ? `${p.start} to ${p.end}` : p.start ? `from ${p.start}` : `until ${p.end}`);

/** When and where: the periods, the places by name (linked to their IRI), and the drawing. */
export function Coverage(props: { temporal: Period[]; spatial: Place[] }) {
  if (props.temporal.length === 0 && props.spatial.length === 0) return null;
  return (
    <section aria-labelledby="coverage-heading" class="coverage">
      <h2 id="coverage-heading">Coverage</h2>
      <dl>
        {props.temporal.length > 0 && (
          <>
            <dt>Time</dt>
            <dd>
              <ul class="plain">
                {props.temporal.map((p) => (
                  <li>{periodText(p)}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {props.spatial.length > 0 && (
          <>
            <dt>Places</dt>
            <dd>
              <ul class="plain">
                {props.spatial.map((p) => (
                  <li>
                    {p.uri ? <TextOrLink value={p.uri}>{p.name ?? p.uri}</TextOrLink> : (p.name ?? 'A place without a name')}
                    {p.bbox && <span class="muted">{` (box ${p.bbox.join(', ')})`}</span>}
                    {p.geometry && <span class="muted">{` (${p.geometry.type})`}</span>}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      <CoverageMap places={props.spatial} />
    </section>
  );
}

/** Labelled rows of the values set, in the order given; nothing when none is. */
export function RecordList(props: { rows: Array<[label: string, value: unknown]> }) {
  const set = props.rows.filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (set.length === 0) return null;
  return (
    <dl class="record">
      {set.map(([label, v]) => (
        <>
          <dt>{label}</dt>
          <dd>
            <Value value={v} />
          </dd>
        </>
      ))}
    </dl>
  );
}

/** Free key/value pairs (CKAN's extras), as a table, in their order. */
export function ExtrasTable(props: { extras: Extra[]; caption: string }) {
  if (props.extras.length === 0) return null;
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={props.caption}>
      <table class="extras">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {props.extras.map((e) => (
            <tr>
              <th scope="row">{e.key}</th>
              <td>{e.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
