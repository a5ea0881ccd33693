/**
 * The licenses a dataset's `licenseId` names: CKAN's default table (the ids every CKAN portal and its
 * harvesters use), plus the ids common in real catalogs (data.gov's `us-pd`, `cc-by-4.0`). The CKAN API
 * reads titles and openness from it (`license_title`, `isopen`, `license_list`); the feeds read the
 * document's URL (`dct:license`, schema.org `license`). An id outside the table is kept as the publisher
 * wrote it: its title is the id itself, with no URL, and it is not called open.
 */
export interface License {
  id: string;
  title: string;
  /** The license's own document, when it has one. */
  url: string | null;
  /** Conformant with the Open Definition, as CKAN judges it. */
  open: boolean;
}

const od = (id: string) => `http://www.opendefinition.org/licenses/${id}`;

export const LICENSES: readonly License[] = [
  { id: 'notspecified', title: 'License not specified', url: null, open: false },
  { id: 'odc-pddl', title: 'Open Data Commons Public Domain Dedication and License (PDDL)', url: od('odc-pddl'), open: true },
  { id: 'odc-odbl', title: 'Open Data Commons Open Database License (ODbL)', url: od('odc-odbl'), open: true },
  { id: 'odc-by', title: 'Open Data Commons Attribution License', url: od('odc-by'), open: true },
  { id: 'cc-zero', title: 'Creative Commons CCZero', url: od('cc-zero'), open: true },
  { id: 'cc-by', title: 'Creative Commons Attribution', url: od('cc-by'), open: true },
  { id: 'cc-by-4.0', title: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/', open: true },
  { id: 'cc-by-sa', title: 'Creative Commons Attribution Share-Alike', url: od('cc-by-sa'), open: true },
  { id: 'gfdl', title: 'GNU Free Documentation License', url: od('gfdl'), open: true },
  { id: 'other-open', title: 'Other (Open)', url: null, open: true },
  { id: 'other-pd', title: 'Other (Public Domain)', url: null, open: true },
  { id: 'other-at', title: 'Other (Attribution)', url: null, open: true },
  { id: 'uk-ogl', title: 'UK Open Government Licence (OGL)', url: 'http://reference.data.gov.uk/id/open-government-licence', open: true },
  { id: 'us-pd', title: 'U.S. Government Work (Public Domain)', url: 'https://www.usa.gov/government-works', open: true },
  { id: 'cc-nc', title: 'Creative Commons Non-Commercial (Any)', url: 'http://creativecommons.org/licenses/by-nc/2.0/', open: false },
  { id: 'other-nc', title: 'Other (Non-Commercial)', url: null, open: false },
  { id: 'other-closed', title: 'Other (Not Open)', url: null, open: false },
];

const byId = new Map(LICENSES.map((license) => [license.id, license]));

/** The license a dataset names, or null when it names none. */
export function licenseFor(id: string | null | undefined): License | null {
  if (!id) return null;
  return byId.get(id) ?? { id, title: id, url: null, open: false };
}
