/**
 * What Almanac knows of a few small authority tables without fetching them, so that a feed can say of an
 * IRI what DCAT-AP's shapes want said: the English label of a concept (skos:prefLabel is mandatory on a
 * skos:Concept) of the planned-availability, dataset-status, ADMS licence-type and publisher-type tables,
 * and the ADMS licence types of a license (dct:type, recommended on a dct:LicenseDocument), read from the
 * license's id or IRI as the license families name themselves.
 */
const LICENCE_TYPE = 'http://purl.org/adms/licencetype/';
const EU = 'http://publications.europa.eu/resource/authority/';

const table = (bases: string[], labels: Record<string, string>) =>
  bases.flatMap((base) => Object.entries(labels).map(([entry, label]) => [base + entry, label] as const));

const LABELS = new Map<string, string>([
  ...table(['http://data.europa.eu/r5r/availability/'], {
    available: 'available',
    experimental: 'experimental',
    stable: 'stable',
    temporary: 'temporary',
  }),
  ...table([`${EU}planned-availability/`], {
    AVAILABLE: 'available',
    EXPERIMENTAL: 'experimental',
    STABLE: 'stable',
    TEMPORARY: 'temporary',
  }),
  ...table([`${EU}dataset-status/`, `${EU}distribution-status/`], {
    COMPLETED: 'Completed',
    DEPRECATED: 'Deprecated',
    DEVELOP: 'Under development',
    WITHDRAWN: 'Withdrawn',
  }),
  ...table([LICENCE_TYPE], {
    Attribution: 'Attribution',
    PublicDomain: 'Public domain',
    ShareAlike: 'Share-alike',
    NonCommercialUseOnly: 'Non-commercial use only',
    NoDerivativeWork: 'No derivative work',
  }),
  ...table(['http://purl.org/adms/publishertype/'], {
    'Academia-ScientificOrganisation': 'Academia/Scientific organisation',
    Company: 'Company',
    IndustryConsortium: 'Industry consortium',
    LocalAuthority: 'Local authority',
    NationalAuthority: 'National authority',
    NonGovernmentalOrganisation: 'Non-governmental organisation',
    NonProfitOrganisation: 'Non-profit organisation',
    PrivateIndividual: 'Private individual(s)',
    RegionalAuthority: 'Regional authority',
    StandardisationBody: 'Standardisation body',
    SupraNationalAuthority: 'Supra-national authority',
  }),
]);

/** The English label of a concept of the tables above, else null. */
export const knownLabel = (iri: string | null | undefined): string | null => (iri ? (LABELS.get(iri) ?? null) : null);

/**
 * The ADMS licence types of a license named by an id (`cc-by-sa`) or IRI (`…/licence/CC_BY_4_0`,
 * `https://creativecommons.org/licenses/by-nc/4.0/`): its clauses as the name spells them. None when the
 * name says nothing of them.
 */
export function licenceTypes(idOrIri: string): string[] {
  const words = new Set(
    idOrIri
      .toLowerCase()
      .replace(/^.*\/(licen[cs]es?|licence)\//, '')
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );
  const has = (...names: string[]) => names.some((n) => words.has(n));
  const types: string[] = [];
  if (has('zero', 'cc0', 'pddl', 'pd', 'publicdomain')) types.push('PublicDomain');
  if (has('by', 'attribution', 'at', 'odbl', 'ogl')) types.push('Attribution');
  if (has('sa', 'odbl', 'gfdl')) types.push('ShareAlike');
  if (has('nc')) types.push('NonCommercialUseOnly');
  if (has('nd')) types.push('NoDerivativeWork');
  return types.map((t) => LICENCE_TYPE + t);
}
