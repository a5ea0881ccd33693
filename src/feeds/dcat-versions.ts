import { DataFactory, type NamedNode, type Quad } from 'n3';
import { schemaChangeNotes } from '../domain/pipeline/schema-change-notes.ts';
import type { VersionSummary } from '../domain/resources/version-store.ts';
import type { CatalogSite, Graph } from './dcat-document.ts';
import { DISTRIBUTION_WRITERS } from './dcat-record-writer.ts';
import { adms, typedLiteral, type Subject } from './dcat-terms.ts';
import type { ResourceRecord } from './public-datasets.ts';
import { dcat, dct, rdf, rdfs } from './vocabulary.ts';

/**
 * A resource's data versions (issue 30 §2) in DCAT 3's versioning terms (its §11): the distribution states
 * the version it serves (`dcat:version`, the version's number) and how it differs from the one before
 * (`adms:versionNotes`), and links each earlier version it served that retention keeps (`dcat:hasVersion`).
 * DCAT 3 has each version be a resource of its own IRI: here a fragment of the distribution's, which the
 * resource's page answers with that version's row, while `dcat:downloadURL` is where its bytes are.
 */
const { namedNode, literal } = DataFactory;

const versionIri = (distribution: NamedNode, n: number) => namedNode(`${distribution.value}#version-${n}`);

function addVersionFacts(graph: Graph, node: Subject, version: VersionSummary) {
  graph.add(node, dcat('version'), literal(String(version.n)));
  graph.text(node, adms('versionNotes'), schemaChangeNotes(version.schemaDiff));
}

export function addVersions(
  graph: Graph,
  site: CatalogSite,
  node: NamedNode,
  resource: ResourceRecord,
  title: string,
  license: Subject | null,
) {
  const { current, earlier } = resource.versions;
  if (current) addVersionFacts(graph, node, current);
  for (const version of earlier) {
    const earlierNode = versionIri(node, version.n);
    graph.add(node, dcat('hasVersion'), earlierNode);
    graph.add(earlierNode, rdf('type'), dcat('Distribution'));
    graph.text(earlierNode, dct('title'), `${title} (version ${version.n})`);
    addVersionFacts(graph, earlierNode, version);
    // Served for anyone the dataset is public to, as the current file is; DCAT-AP wants an access URL of every distribution.
    const download = namedNode(`${site.publicUrl}/api/v1/resources/${resource.id}/versions/${version.n}/download`);
    graph.add(earlierNode, dcat('accessURL'), download);
    graph.add(earlierNode, dcat('downloadURL'), download);
    graph.add(download, rdf('type'), rdfs('Resource'));
    graph.add(earlierNode, dct('issued'), typedLiteral(version.createdAt.toISOString(), 'dateTime'));
    if (version.size !== null) graph.add(earlierNode, dcat('byteSize'), typedLiteral(String(version.size), 'nonNegativeInteger'));
    if (version.sha256 && /^[0-9a-f]{64}$/i.test(version.sha256)) {
      const w = {
        add: (s: Subject, p: NamedNode, o: Quad['object']) => graph.add(s, p, o),
        label: (s: string) => `r-${resource.id}-v${version.n}-${s}`,
      };
      DISTRIBUTION_WRITERS.checksum(w, earlierNode, { algorithm: 'sha256', value: version.sha256 });
    }
    // The file is offered today under the terms the current one is.
    if (license) graph.add(earlierNode, dct('license'), license);
  }
}
