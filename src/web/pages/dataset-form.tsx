import type { FieldError } from '../../domain/errors.ts';
import { LICENSES } from '../../domain/licenses.ts';
import type { ProfileField } from '../../domain/metadata/profiles-fields.ts';
import type { CustomFormValues } from '../profile-form.ts';
import type { RecordFormValues } from '../record-form.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { formatBytes } from './dataset.tsx';
import { ProfileInputs } from './profile-inputs.tsx';
import { RecordInputs } from './record-inputs.tsx';
import type { DatasetDetail } from './types.ts';

export interface FormValues {
  name: string;
  title: string;
  notes: string;
  ownerOrg: string;
  licenseId: string;
  tags: string;
  private: boolean;
  /** The metadata profile's fields, as entered. */
  custom: CustomFormValues;
  /** The metadata record's keys the form edits, as entered. */
  record: RecordFormValues;
}

/** The profile fields the form shows, and the values the dataset holds outside them. */
export interface ProfileForm {
  fields: ProfileField[];
  outside: Array<[string, unknown]>;
  /** The profile fields of the dataset's resources, in the form that adds one. */
  resourceFields: ProfileField[];
}

export interface OrgOption {
  name: string;
  title: string;
}

/** A field's error, next to it and tied to it for screen readers. */
function FieldMessage(props: { id: string; errors: FieldError[] }) {
  const messages = props.errors.filter((e) => e.path === props.id || e.path.startsWith(`${props.id}.`));
  if (messages.length === 0) return null;
  return (
    <p class="field-error" id={`${props.id}-error`}>
      {messages.map((e) => e.message).join('; ')}
    </p>
  );
}

const described = (id: string, errors: FieldError[]) =>
  errors.some((e) => e.path === id || e.path.startsWith(`${id}.`)) ? `${id}-error` : undefined;

/**
 * The choices, with the current value among them even when it is not one of them (a license id from a
 * harvest, an organization beyond the caller's): saving must never clear a field the form did not show.
 */
function withCurrent(options: OrgOption[], current: string): OrgOption[] {
  return current && !options.some((o) => o.name === current) ? [{ name: current, title: current }, ...options] : options;
}

/** The dataset's own fields: the same form creates a draft and edits one. */
function Fields(props: { values: FormValues; errors: FieldError[]; orgs: OrgOption[]; profile: ProfileForm }) {
  const { values, errors } = props;
  return (
    <>
      <label for="title">Title</label>
      <input id="title" name="title" value={values.title} aria-describedby={described('title', errors)} />
      <FieldMessage id="title" errors={errors} />
      <label for="name">URL name</label>
      <input
        id="name"
        name="name"
        value={values.name}
        pattern="[a-z0-9_\-]{2,100}"
        aria-describedby={`name-hint ${described('name', errors) ?? ''}`.trim()}
      />
      <p class="hint" id="name-hint">
        Lowercase letters, digits, - and _; the dataset's address: /dataset/name
      </p>
      <FieldMessage id="name" errors={errors} />
      <label for="notes">Description (Markdown)</label>
      <textarea id="notes" name="notes" rows={6}>
        {values.notes}
      </textarea>
      <FieldMessage id="notes" errors={errors} />
      <label for="ownerOrg">Organization</label>
      <select id="ownerOrg" name="ownerOrg" aria-describedby={described('ownerOrg', errors)}>
        <option value="">Choose…</option>
        {withCurrent(props.orgs, values.ownerOrg).map((o) => (
          <option value={o.name} selected={o.name === values.ownerOrg}>
            {o.title || o.name}
          </option>
        ))}
      </select>
      <FieldMessage id="ownerOrg" errors={errors} />
      <label for="licenseId">License</label>
      <select id="licenseId" name="licenseId" aria-describedby={described('licenseId', errors)}>
        <option value="">Choose…</option>
        {withCurrent(
          LICENSES.map((l) => ({ name: l.id, title: l.title })),
          values.licenseId,
        ).map((l) => (
          <option value={l.name} selected={l.name === values.licenseId}>
            {l.title}
          </option>
        ))}
      </select>
      <FieldMessage id="licenseId" errors={errors} />
      <label for="tags">Tags (separated by commas)</label>
      <input id="tags" name="tags" value={values.tags} aria-describedby={described('tags', errors)} />
      <FieldMessage id="tags" errors={errors} />
      <label class="check">
        <input type="checkbox" name="private" value="true" checked={values.private} /> Private: only the organization's members see it
      </label>
      <RecordInputs values={values.record} errors={errors} />
      <ProfileInputs fields={props.profile.fields} values={values.custom} outside={props.profile.outside} errors={errors} />
    </>
  );
}

/** GET /dataset/new: a draft starts here; nothing is public until it is published. */
export function NewDatasetPage(props: {
  frame: PageFrame;
  values: FormValues;
  errors: FieldError[];
  orgs: OrgOption[];
  profile: ProfileForm;
}) {
  return (
    <Layout frame={props.frame} title="New dataset">
      <h1>New dataset</h1>
      <p class="muted">It starts as a draft: nobody else sees it until you publish it.</p>
      <form method="post" action="/dataset/new" class="form">
        <input type="hidden" name="_csrf" value={props.frame.csrf} />
        {props.errors.length > 0 && <ErrorSummary errors={props.errors} />}
        <Fields values={props.values} errors={props.errors} orgs={props.orgs} profile={props.profile} />
        <button type="submit">Create draft</button>
      </form>
    </Layout>
  );
}

function ErrorSummary(props: { errors: FieldError[] }) {
  return (
    <div class="error" role="alert">
      <p>Some fields need attention:</p>
      <ul>
        {props.errors.map((e) => (
          <li>
            {/* A profile field's control is named by its whole path. */}
            <a href={`#${/(^|\.)customFields\./.test(e.path) ? e.path : e.path.split('.')[0]}`}>{`${e.path}: ${e.message}`}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * GET /dataset/{name}/edit: a dataset's fields (a draft's, or a published one's), its resources (a link, or a file uploaded straight to
 * storage with a progress bar), and the publish button with what is missing named next to its field.
 */
export function EditDatasetPage(props: {
  frame: PageFrame;
  dataset: DatasetDetail;
  values: FormValues;
  errors: FieldError[];
  orgs: OrgOption[];
  profile: ProfileForm;
}) {
  const d = props.dataset;
  const base = `/dataset/${encodeURIComponent(d.name)}`;
  const draft = d.state === 'draft';
  return (
    <Layout frame={props.frame} title={`Edit ${d.title || d.name}`}>
      {!draft && (
        <nav aria-label="Breadcrumb" class="breadcrumb">
          <a href={base}>{d.title || d.name}</a>
        </nav>
      )}
      <h1>
        {d.title || d.name}
        {draft && <span class="badge">Draft</span>}
      </h1>
      {props.errors.length > 0 && <ErrorSummary errors={props.errors} />}
      <form method="post" action={`${base}/edit`} class="form" id="fields-form">
        <input type="hidden" name="_csrf" value={props.frame.csrf} />
        <Fields values={props.values} errors={props.errors} orgs={props.orgs} profile={props.profile} />
        <button type="submit">{draft ? 'Save draft' : 'Save'}</button>
      </form>

      <section aria-labelledby="resources-heading">
        <h2 id="resources-heading">Resources</h2>
        {(d.resources ?? []).length === 0 ? (
          <p class="muted">None yet.</p>
        ) : (
          <ul class="resources">
            {(d.resources ?? []).map((r) => (
              <li>
                <a href={`${base}/resource/${r.id}`}>{r.name || 'Unnamed resource'}</a>
                {r.format && <span class="format">{r.format}</span>}
                {r.size !== null && <span class="size">{formatBytes(r.size)}</span>}
                {r.urlType === 'upload' && !r.url && <span class="badge">No file yet</span>}
              </li>
            ))}
          </ul>
        )}
        <div class="resource-forms">
          <form method="post" action={`${base}/resources`} class="form">
            <h3>Add a link</h3>
            <input type="hidden" name="_csrf" value={props.frame.csrf} />
            <label for="link-name">Name</label>
            <input id="link-name" name="name" />
            <label for="link-url">URL</label>
            <input id="link-url" name="url" type="url" required />
            <label for="link-format">Format</label>
            <input id="link-format" name="format" placeholder="CSV, JSON, PDF…" />
            <ProfileInputs
              fields={props.profile.resourceFields}
              values={{}}
              outside={[]}
              errors={props.errors}
              prefix="resource.customFields"
              legend="More about this resource"
            />
            <button type="submit">Add link</button>
          </form>
          <form class="form upload-form" data-dataset={d.id} data-resource-base={`${base}/resource/`} hidden>
            <h3>Upload a file</h3>
            <label for="upload-file">File</label>
            <input id="upload-file" name="file" type="file" required />
            <progress id="upload-progress" max="100" value="0" aria-label="Upload progress" />
            <p id="upload-status" role="status" class="muted" />
            <button type="submit">Upload</button>
          </form>
          <noscript>
            <p class="muted">Uploading a file needs JavaScript (the bytes go straight to storage); a link works without it.</p>
          </noscript>
        </div>
      </section>

      {draft && (
        <section aria-labelledby="publish-heading">
          <h2 id="publish-heading">Publish</h2>
          <p class="muted">Publishing needs a URL name, an organization and a license; then anyone who may see it finds it.</p>
          <form method="post" action={`${base}/publish`} class="form">
            <input type="hidden" name="_csrf" value={props.frame.csrf} />
            <button type="submit">Publish</button>
          </form>
        </section>
      )}
      <script type="module" src="/static/upload.js" />
    </Layout>
  );
}
