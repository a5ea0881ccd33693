import type Router from '@koa/router';
import type { Context } from 'koa';
import { DatasetFields, ResourceBody } from '../api/v1/packages/schema.ts';
import { mayEditDataset, orgRolesOf } from '../domain/datasets/access.ts';
import { placeableOrganizations } from '../domain/datasets/references.ts';
import { createDraft, getDataset, publishDataset, updateDataset } from '../domain/datasets/lifecycle.ts';
import { DomainError, forbidden, validationFailed, type FieldError } from '../domain/errors.ts';
import { DATASET_RECORD, recordKeys } from '../domain/metadata/dataset-record.ts';
import type { DatasetMetadataInput } from '../domain/metadata/record-io.ts';
import type { ProfileField } from '../domain/metadata/profiles-fields.ts';
import { profileFieldsFor } from '../domain/metadata/profiles.ts';
import { addResource } from '../domain/resources/resources.ts';
import { fieldErrors } from '../http/validate.ts';
import { checkCsrf } from './csrf.ts';
import { readForm } from './form.ts';
import { actorOf, domainOf, frameOf, loggedIn, mountPage } from './page-context.tsx';
import { EditDatasetPage, NewDatasetPage, type FormValues, type OrgOption, type ProfileForm } from './pages/dataset-form.tsx';
import { recordInputOfForm, recordValuesOfDataset, recordValuesOfForm } from './record-form.ts';
import { customFieldsOfForm, customValuesOfForm, customValuesOfRecord, valuesOutsideProfile } from './profile-form.ts';
import type { DatasetDetail } from './pages/types.ts';
import { sendPage } from './render.ts';
import type { DomainServices } from '../domain/context.ts';

const EMPTY: FormValues = {
  name: '',
  title: '',
  notes: '',
  ownerOrg: '',
  licenseId: '',
  tags: '',
  private: false,
  custom: {},
  record: recordValuesOfDataset({}),
};

/** The profile fields of a dataset in this organization (none yet: the site's), as the form shows them. */
async function profileForm(ctx: Context, orgId: string | null, stored: Record<string, unknown> = {}): Promise<ProfileForm> {
  const { dataset: fields, resource: resourceFields } = await profileFieldsFor(domainOf(ctx), orgId);
  return { fields, outside: valuesOutsideProfile(fields, stored), resourceFields };
}

/** The organizations the caller may place a dataset in: the domain's rule, as the form's choices. */
const orgOptions = async (ctx: Context): Promise<OrgOption[]> =>
  placeableOrganizations(domainOf(ctx), actorOf(ctx), await orgRolesOf(domainOf(ctx), actorOf(ctx)));

const valuesOf = (form: URLSearchParams, fields: ProfileField[]): FormValues => ({
  name: form.get('name')?.trim() ?? '',
  title: form.get('title')?.trim() ?? '',
  notes: form.get('notes') ?? '',
  ownerOrg: form.get('ownerOrg') ?? '',
  licenseId: form.get('licenseId') ?? '',
  tags: form.get('tags') ?? '',
  private: form.get('private') === 'true',
  custom: customValuesOfForm(form, fields),
  record: recordValuesOfForm(form),
});

const valuesOfDataset = (d: DatasetDetail, fields: ProfileField[]): FormValues => ({
  name: d.name,
  title: d.title ?? '',
  notes: d.notes ?? '',
  ownerOrg: d.organization?.name ?? '',
  licenseId: d.licenseId ?? '',
  tags: d.tags.join(', '),
  private: d.private,
  custom: customValuesOfRecord(fields, d.customFields),
  record: recordValuesOfDataset(d),
});

/**
 * What the form does not show, as the dataset has it: a published dataset's update replaces every field
 * (PUT), so these go along unchanged.
 */
const keptFields = (d: DatasetDetail) => ({
  author: d.author,
  authorEmail: d.authorEmail,
  maintainer: d.maintainer,
  maintainerEmail: d.maintainerEmail,
  version: d.version,
  url: d.url,
  groups: d.groups.map((g) => g.name),
  // The metadata record and extras the form has no input for: a published dataset's PUT would clear them.
  ...(Object.fromEntries([...recordKeys(DATASET_RECORD), 'extras'].map((k) => [k, d[k as keyof DatasetDetail]])) as DatasetMetadataInput),
});

/** The form as the API's body, checked by the API's own schema: an empty field clears it, an empty name keeps the one there is. */
function inputOf(values: FormValues, profile: ProfileForm, stored: Record<string, unknown> = {}) {
  const orNull = (value: string) => (value.trim() === '' ? null : value);
  const parsed = DatasetFields.safeParse({
    ...(values.name ? { name: values.name } : {}),
    title: orNull(values.title),
    notes: orNull(values.notes),
    ownerOrg: orNull(values.ownerOrg),
    licenseId: orNull(values.licenseId),
    private: values.private,
    tags: values.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    ...recordInputOfForm(values.record),
    customFields: customFieldsOfForm(profile.fields, values.custom, stored),
  });
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error), 'Some fields need attention.');
  return parsed.data;
}

/** What a failed form post says about its fields; null for a failure that is not the form's (it becomes the error page). */
function fieldErrorsOf(err: unknown): FieldError[] | null {
  if (!(err instanceof DomainError)) return null;
  if (err.errors?.length) return err.errors;
  // A taken name is the one conflict a dataset's own fields can cause.
  return err.code === 'conflict' ? [{ path: 'name', message: err.message }] : null;
}

const editPath = (name: string) => `/dataset/${encodeURIComponent(name)}/edit`;

/** Creating a draft, editing it, adding its resources and publishing it, in pages. */
export function mountPublishPages(router: Router, services: DomainServices) {
  mountPage(router, services, 'GET /dataset/new', async (ctx) => {
    if (!loggedIn(ctx)) return;
    const [frame, orgs, profile] = await Promise.all([frameOf(ctx, services), orgOptions(ctx), profileForm(ctx, null)]);
    sendPage(ctx, <NewDatasetPage frame={frame} values={EMPTY} errors={[]} orgs={orgs} profile={profile} />);
  });

  mountPage(router, services, 'POST /dataset/new', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    if (!loggedIn(ctx)) return;
    const profile = await profileForm(ctx, null);
    const values = valuesOf(form, profile.fields);
    try {
      const draft = await createDraft(domainOf(ctx), actorOf(ctx), inputOf(values, profile));
      ctx.redirect(editPath(draft.name));
    } catch (err) {
      const errors = fieldErrorsOf(err);
      if (!errors) throw err;
      const [frame, orgs] = await Promise.all([frameOf(ctx, services), orgOptions(ctx)]);
      sendPage(
        ctx,
        <NewDatasetPage frame={frame} values={values} errors={errors} orgs={orgs} profile={profile} />,
        (err as DomainError).status,
      );
    }
  });

  /** The draft page, with the form's values and errors when a post failed. */
  const showDraft = async (ctx: Context, draft: DatasetDetail, values: FormValues | null, errors: FieldError[], status = 200) => {
    const [frame, orgs, profile] = await Promise.all([
      frameOf(ctx, services),
      orgOptions(ctx),
      profileForm(ctx, draft.ownerOrg, draft.customFields),
    ]);
    const shown = values ?? valuesOfDataset(draft, profile.fields);
    sendPage(ctx, <EditDatasetPage frame={frame} dataset={draft} values={shown} errors={errors} orgs={orgs} profile={profile} />, status);
  };
  /**
   * A draft, else a published dataset, that the caller may edit: the page edits both. Someone who may see
   * it but not edit it is refused here rather than shown a form that cannot be saved.
   */
  const loadDraft = async (ctx: Context) => {
    let dataset: DatasetDetail;
    try {
      dataset = await getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: true });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
      dataset = await getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: false });
    }
    if (!(await mayEditDataset(domainOf(ctx), actorOf(ctx), dataset.id)))
      throw forbidden('Only editors of its organization may edit this dataset.');
    return dataset;
  };

  mountPage(router, services, 'GET /dataset/:name/edit', async (ctx) => {
    if (!loggedIn(ctx)) return;
    const draft = await loadDraft(ctx);
    await showDraft(ctx, draft, null, []);
  });

  mountPage(router, services, 'POST /dataset/:name/edit', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    if (!loggedIn(ctx)) return;
    const draft = await loadDraft(ctx);
    const profile = await profileForm(ctx, draft.ownerOrg, draft.customFields);
    const values = valuesOf(form, profile.fields);
    try {
      const input = { ...keptFields(draft), ...inputOf(values, profile, draft.customFields) };
      const saved = await updateDataset(domainOf(ctx), actorOf(ctx), draft.id, input);
      ctx.redirect(saved.state === 'active' ? `/dataset/${encodeURIComponent(saved.name)}` : editPath(saved.name));
    } catch (err) {
      const errors = fieldErrorsOf(err);
      if (!errors) throw err;
      await showDraft(ctx, draft, values, errors, (err as DomainError).status);
    }
  });

  mountPage(router, services, 'POST /dataset/:name/resources', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    if (!loggedIn(ctx)) return;
    const draft = await loadDraft(ctx);
    const { resourceFields } = await profileForm(ctx, draft.ownerOrg);
    const prefix = 'resource.customFields';
    const parsed = ResourceBody.safeParse({
      urlType: 'link',
      url: form.get('url') || null,
      name: form.get('name') || null,
      format: form.get('format') || null,
      customFields: customFieldsOfForm(resourceFields, customValuesOfForm(form, resourceFields, prefix), {}),
    });
    try {
      if (!parsed.success) throw validationFailed(fieldErrors(parsed.error, 'resource'), 'The link needs attention.');
      await addResource(domainOf(ctx), actorOf(ctx), draft.id, parsed.data);
      ctx.redirect(editPath(draft.name));
    } catch (err) {
      // The domain names a profile value `customFields.<name>`: in this form, the resource's control.
      const errors =
        fieldErrorsOf(err)?.map((e) => (e.path.startsWith('customFields.') ? { ...e, path: `resource.${e.path}` } : e)) ?? null;
      if (!errors) throw err;
      await showDraft(ctx, draft, null, errors, (err as DomainError).status);
    }
  });

  mountPage(router, services, 'POST /dataset/:name/publish', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    if (!loggedIn(ctx)) return;
    const draft = await loadDraft(ctx);
    try {
      const published = await publishDataset(domainOf(ctx), actorOf(ctx), draft.id);
      ctx.redirect(`/dataset/${encodeURIComponent(published.name)}`);
    } catch (err) {
      const errors = fieldErrorsOf(err);
      if (!errors) throw err;
      await showDraft(ctx, draft, null, errors, (err as DomainError).status);
    }
  });
}
