import type { DatasetHit } from './types.ts';

/** The matched words of a passage, marked. */
function Snippet(props: { text: string; highlights: number[][] }) {
  const parts = [];
  let at = 0;
  for (const [start, end] of props.highlights) {
    if (start! < at) continue;
    parts.push(props.text.slice(at, start));
    parts.push(<mark>{props.text.slice(start, end)}</mark>);
    at = end!;
  }
  parts.push(props.text.slice(at));
  return <p class="snippet">{parts}</p>;
}

const INDEX_LABELS = { packages: 'its description', resources: 'a resource', contents: 'the text of a file' } as const;

/** Why a search found the dataset: keywords, and the passages that matched by meaning. */
function WhyMatched(props: { match: NonNullable<DatasetHit['match']> }) {
  const { match } = props;
  const semantic = match.semantic ?? [];
  return (
    <div class="why">
      {match.snippet && <Snippet text={match.snippet.text} highlights={match.snippet.highlights} />}
      <p class="matched-by">
        {match.keyword ? 'Matched your words' : 'Matched by meaning'}
        {semantic.length > 0 && `; close in meaning to ${[...new Set(semantic.map((s) => INDEX_LABELS[s.index]))].join(', ')}`}
      </p>
      {semantic
        .filter((s) => s.text)
        .slice(0, 2)
        .map((s) => (
          <blockquote class="passage">{s.text}</blockquote>
        ))}
    </div>
  );
}

/** One dataset in a list: its title, organization, tags, and why it matched a search. */
export function DatasetCard(props: { dataset: DatasetHit }) {
  const d = props.dataset;
  return (
    <li class="dataset-card">
      <h3>
        <a href={`/dataset/${encodeURIComponent(d.name)}`}>{d.title || d.name}</a>
        {d.private && <span class="badge">Private</span>}
      </h3>
      {d.organization && <p class="org">{d.organization.title || d.organization.name}</p>}
      {d.match ? <WhyMatched match={d.match} /> : d.notes && <p class="notes">{excerpt(d.notes)}</p>}
      {d.tags.length > 0 && (
        <ul class="chips" aria-label="Tags">
          {d.tags.slice(0, 6).map((tag) => (
            <li>{tag}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The start of a description, as plain text (its Markdown marks stripped roughly). */
export function excerpt(text: string, length = 220) {
  const plain = text
    .replace(/[#*_`>[\]]|\(https?:[^)]*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > length ? `${plain.slice(0, length).replace(/\s+\S*$/, '')}…` : plain;
}
