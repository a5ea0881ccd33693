import type { DatasetRecordValues } from '../../domain/metadata/dataset-record.ts';
import type { DistributionRecordValues } from '../../domain/metadata/distribution-record.ts';
import type { Agent } from '../../domain/metadata/values.ts';
import { placeOf } from './dcat-ap-places.ts';
import type { RdfGraph, RdfTerm } from './rdf-terms.ts';

/**
 * DCAT-AP 3's properties of a dcat:Dataset and a dcat:Distribution as the metadata record's values, each
 * as the source gives it (an IRI stays that IRI, a date its text). The domain checks every value with
 * the record's schema; whatever the record cannot hold exactly is kept as raw triples (dcat-ap-lossless.ts).
 */
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const ADMS = 'http://www.w3.org/ns/adms#';
const PROV = 'http://www.w3.org/ns/prov#';
const ODRL = 'http://www.w3.org/ns/odrl/2/';
const DCATAP = 'http://data.europa.eu/r5r/';
const TIME = 'http://www.w3.org/2006/time#';
const ORG = 'http://www.w3.org/ns/org#';
const POD = 'https://project-open-data.cio.gov/v1.1/schema#';
const SPDX = 'http://spdx.org/rdf/terms#';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const IANA = /^https?:\/\/www\.iana\.org\/assignments\/media-types\//i;

const named = (t: RdfTerm | null) => (t && t.termType === 'NamedNode' ? t.value : null);
const lit = (t: RdfTerm | null) => (t && t.termType === 'Literal' ? t.value : null);
const mail = (t: RdfTerm | null) => (t ? t.value.replace(/^mailto:/i, '') : null);

function reader(graph: RdfGraph) {
  const one = (n: RdfTerm, p: string) => graph.object(n, p);
  const iris = (n: RdfTerm, p: string) => graph.objects(n, p).flatMap((o) => (o.termType === 'NamedNode' ? [o.value] : []));
  const label = (n: RdfTerm) => graph.text(n, `${SKOS}prefLabel`) ?? graph.text(n, `${RDFS}label`) ?? graph.text(n, `${DCT}title`);
  const textOf = (o: RdfTerm) => (o.termType === 'Literal' ? o.value : label(o));
  const concept = (o: RdfTerm | null) => (o ? { uri: named(o), label: o.termType === 'Literal' ? o.value : label(o) } : null);
  const agent = (o: RdfTerm | null, depth = 0): Agent | null =>
    o
      ? {
          uri: named(o),
          name: o.termType === 'Literal' ? o.value : (graph.text(o, `${FOAF}name`) ?? label(o)),
          email: mail(one(o, `${FOAF}mbox`)),
          url: named(one(o, `${FOAF}homepage`)),
          type: named(one(o, `${DCT}type`)),
          subOrganizationOf: depth < 5 ? agent(one(o, `${ORG}subOrganizationOf`), depth + 1) : null,
        }
      : null;
  const instant = (o: RdfTerm | null) =>
    o && o.termType === 'Literal'
      ? o.value
      : o
        ? (['inXSDDateTimeStamp', 'inXSDDateTime', 'inXSDDate', 'inXSDgYear', 'inXSDgYearMonth']
            .map((p) => lit(one(o, `${TIME}${p}`)))
            .find(Boolean) ?? null)
        : null;
  const phone = (o: RdfTerm | null) =>
    !o ? null : o.termType === 'BlankNode' ? (lit(one(o, `${VCARD}hasValue`)) ?? named(one(o, `${VCARD}hasValue`))) : o.value;
  return { one, iris, label, textOf, concept, agent, instant, phone };
}

const texts = (graph: RdfGraph, n: RdfTerm, p: string, textOf: (o: RdfTerm) => string | null) =>
  graph.objects(n, p).flatMap((o) => {
    const t = textOf(o);
    return t ? [t] : [];
  });

/** The values as given: the domain's schema check decides what fits (HarvestRecord['metadata'] takes them as such). */
export function datasetRecordOf(graph: RdfGraph, node: RdfTerm): DatasetRecordValues {
  return datasetValues(graph, node) as DatasetRecordValues;
}

function datasetValues(graph: RdfGraph, node: RdfTerm) {
  const r = reader(graph);
  const objects = (p: string) => graph.objects(node, p);
  const qualified = (p: string, target: string, read: (o: RdfTerm | null) => unknown) =>
    objects(p).map((o) => ({
      [target]: read(r.one(o, target === 'agent' ? `${PROV}agent` : `${DCT}relation`)),
      role: named(r.one(o, `${DCAT}hadRole`)),
    }));
  const describedBy = named(r.one(node, `${POD}describedBy`));
  const quality = lit(r.one(node, `${POD}dataQuality`));
  const resolution = lit(r.one(node, `${DCAT}spatialResolutionInMeters`));
  return {
    temporal: objects(`${DCT}temporal`).map((o) => ({
      start: r.instant(r.one(o, `${DCAT}startDate`)) ?? r.instant(r.one(o, `${TIME}hasBeginning`)),
      end: r.instant(r.one(o, `${DCAT}endDate`)) ?? r.instant(r.one(o, `${TIME}hasEnd`)),
    })),
    spatial: objects(`${DCT}spatial`).map((o) => placeOf(graph, o)),
    accrualPeriodicity: r.one(node, `${DCT}accrualPeriodicity`)?.value ?? null,
    language: objects(`${DCT}language`).map((o) => o.value),
    theme: objects(`${DCAT}theme`).map((o) => r.concept(o)!),
    publisher: r.agent(r.one(node, `${DCT}publisher`)),
    contactPoint: objects(`${DCAT}contactPoint`).map((o) => ({
      uri: named(o),
      name: graph.text(o, `${VCARD}fn`) ?? graph.text(o, `${VCARD}organization-name`),
      email: mail(r.one(o, `${VCARD}hasEmail`)),
      url: named(r.one(o, `${VCARD}hasURL`)),
      phone: r.phone(r.one(o, `${VCARD}hasTelephone`)),
    })),
    creator: r.agent(r.one(node, `${DCT}creator`)),
    accessLevel: lit(r.one(node, `${POD}accessLevel`)),
    accessRights: r.concept(r.one(node, `${DCT}accessRights`)),
    rights: texts(graph, node, `${DCT}rights`, r.textOf)[0] ?? null,
    issued: lit(r.one(node, `${DCT}issued`)),
    modified: lit(r.one(node, `${DCT}modified`)),
    conformsTo: r.iris(node, `${DCT}conformsTo`),
    describedBy: describedBy ? { url: describedBy, type: lit(r.one(node, `${POD}describedByType`)) } : null,
    references: r.iris(node, `${DCT}references`),
    documentation: r.iris(node, `${FOAF}page`),
    identifier: lit(r.one(node, `${DCT}identifier`)),
    otherIdentifiers: objects(`${ADMS}identifier`).map((o) => {
      const notation = r.one(o, `${SKOS}notation`);
      const scheme = notation?.datatype?.value;
      return { notation: notation?.value ?? lit(o) ?? '', uri: named(o), scheme: scheme && scheme !== XSD_STRING ? scheme : null };
    }),
    isPartOf: [...r.iris(node, `${DCAT}inSeries`), ...texts(graph, node, `${DCT}isPartOf`, (o) => o.value)],
    bureauCode: texts(graph, node, `${POD}bureauCode`, lit),
    programCode: texts(graph, node, `${POD}programCode`, lit),
    dataQuality: quality === null ? null : quality === 'true' || quality === '1',
    primaryITInvestmentUII: lit(r.one(node, `${POD}primaryITInvestmentUII`)),
    systemOfRecords: named(r.one(node, `${POD}systemOfRecords`)),
    versionNotes: graph.text(node, `${ADMS}versionNotes`),
    type: r.concept(r.one(node, `${DCT}type`)),
    status: r.concept(r.one(node, `${ADMS}status`)),
    provenance: texts(graph, node, `${DCT}provenance`, r.textOf),
    source: r.iris(node, `${DCT}source`),
    relation: r.iris(node, `${DCT}relation`),
    hasVersion: r.iris(node, `${DCT}hasVersion`),
    isVersionOf: r.iris(node, `${DCT}isVersionOf`),
    isReferencedBy: r.iris(node, `${DCT}isReferencedBy`),
    sample: r.iris(node, `${ADMS}sample`),
    wasGeneratedBy: r.iris(node, `${PROV}wasGeneratedBy`),
    qualifiedRelation: qualified(`${DCAT}qualifiedRelation`, 'relation', named),
    qualifiedAttribution: qualified(`${PROV}qualifiedAttribution`, 'agent', (o) => r.agent(o)),
    applicableLegislation: r.iris(node, `${DCATAP}applicableLegislation`),
    temporalResolution: lit(r.one(node, `${DCAT}temporalResolution`)),
    spatialResolutionInMeters: resolution === null ? null : Number(resolution),
  };
}

const mediaType = (o: RdfTerm | null) =>
  o?.termType === 'NamedNode' && IANA.test(o.value) ? o.value.replace(IANA, '') : (o?.value ?? null);

export function distributionRecordOf(graph: RdfGraph, node: RdfTerm): DistributionRecordValues {
  return distributionValues(graph, node) as DistributionRecordValues;
}

function distributionValues(graph: RdfGraph, node: RdfTerm) {
  const d = datasetValues(graph, node);
  const r = reader(graph);
  const checksum = r.one(node, `${SPDX}checksum`);
  const algorithm = named(checksum && r.one(checksum, `${SPDX}algorithm`));
  const size = lit(r.one(node, `${DCAT}byteSize`));
  const format = r.one(node, `${DCT}format`);
  return {
    accessUrl: named(r.one(node, `${DCAT}accessURL`)),
    downloadUrl: named(r.one(node, `${DCAT}downloadURL`)),
    byteSize: size !== null && /^\d+$/.test(size) ? Number(size) : null,
    checksum: checksum
      ? { algorithm: algorithm?.replace(/^.*checksumAlgorithm_/, '') ?? '', value: lit(r.one(checksum, `${SPDX}checksumValue`)) ?? '' }
      : null,
    license: named(r.one(node, `${DCT}license`)),
    rights: d.rights,
    accessRights: d.accessRights,
    conformsTo: d.conformsTo,
    describedBy: d.describedBy,
    issued: d.issued,
    modified: d.modified,
    language: d.language,
    temporalResolution: d.temporalResolution,
    spatialResolutionInMeters: d.spatialResolutionInMeters,
    formatUri: named(format),
    compressFormat: mediaType(r.one(node, `${DCAT}compressFormat`)),
    packageFormat: mediaType(r.one(node, `${DCAT}packageFormat`)),
    availability: named(r.one(node, `${DCATAP}availability`)),
    status: d.status,
    documentation: d.documentation,
    applicableLegislation: d.applicableLegislation,
    accessService: r.iris(node, `${DCAT}accessService`),
    hasPolicy: named(r.one(node, `${ODRL}hasPolicy`)),
    page: r.iris(node, `${RDFS}seeAlso`),
  };
}

export const RDF_TYPE = `${RDF}type`;
