"""Compares a dataset of a DCAT-AP source with the same dataset as Almanac re-serves it (rdflib).

  compare <source.ttl> <source dataset IRI> <served.ttl> <served dataset IRI>

Each side is the dataset's concise bounded description (its triples and those of the blank nodes below
them), the dataset node renamed to one IRI; then each distribution the source names, paired with the served
one of the same IRI or the same access/download URL. Blank nodes are compared by isomorphism. Prints
{"missing": [...], "added": [...], "pairs": n, "described": n}: triples of the source not served, and triples served that
the source did not have, less Almanac's own (see ALMANAC_ONLY); `described`, the source's triples
compared (0: the IRI named no dataset of the source).
"""
import json
import sys

import rdflib
from rdflib import BNode, URIRef
from rdflib.compare import graph_diff, to_isomorphic
from rdflib.namespace import RDF

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
ADMS = rdflib.Namespace("http://www.w3.org/ns/adms#")
SELF = URIRef("urn:compare:self")

# What Almanac writes of every dataset and distribution when the source did not say it: its own identifier
# and dates, the description DCAT-AP mandates (the title when there is none), public access (a feed holds
# only public datasets), the owning organization as publisher, the harvested record's provenance
# (adms:identifier with the source IRI, dct:source), and a distribution's title and access URL.
ALMANAC_ONLY = {DCT.identifier, DCT.issued, DCT.modified, DCT.description, DCT.accessRights, DCT.publisher,
                DCT.license, ADMS.identifier, DCT.source, DCT.title, DCAT.accessURL}


def cbd(graph, node):
    out = rdflib.Graph()
    todo, seen = [node], set()
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        for p, o in graph.predicate_objects(s):
            out.add((SELF if s == node else s, p, SELF if o == node else o))
            if isinstance(o, BNode):
                todo.append(o)
    # Almanac types the blank nodes it writes as DCAT-AP's range shapes want; a source need not.
    for s, o in list(out.subject_objects(RDF.type)):
        if isinstance(s, BNode):
            out.remove((s, RDF.type, o))
    return out


def without_almanac_only(source, served):
    """The served description less what Almanac writes of a property the source did not give."""
    given = set(source.predicates(SELF, None))
    kept = rdflib.Graph()
    for t in served:
        kept.add(t)
    for p, o in list(served.predicate_objects(SELF)):
        if p in ALMANAC_ONLY and p not in given:
            kept.remove((SELF, p, o))
            todo = [o]
            while todo:
                n = todo.pop()
                if isinstance(n, BNode):
                    for p2, o2 in list(kept.predicate_objects(n)):
                        kept.remove((n, p2, o2))
                        todo.append(o2)
    return kept


def diff(source, served):
    _, missing, added = graph_diff(to_isomorphic(source), to_isomorphic(without_almanac_only(source, served)))
    return sorted(" ".join(x.n3() for x in t) for t in missing), sorted(
        " ".join(x.n3() for x in t) for t in added
    )


def urls(graph, node):
    return {o for p in (DCAT.accessURL, DCAT.downloadURL) for o in graph.objects(node, p)}


def compare(source_path, source_iri, served_path, served_iri):
    source = rdflib.Graph().parse(source_path, format="turtle")
    served = rdflib.Graph().parse(served_path, format="turtle")
    s_node, a_node = URIRef(source_iri), URIRef(served_iri)
    described = cbd(source, s_node)
    missing, added = diff(described, cbd(served, a_node))
    pairs = 0
    served_dists = list(served.objects(a_node, DCAT.distribution))
    for d in source.objects(s_node, DCAT.distribution):
        match = next((e for e in served_dists if e == d or (urls(source, d) and urls(source, d) & urls(served, e))), None)
        if match is None:
            missing.append(f"distribution {d}")
            continue
        pairs += 1
        m, a = diff(cbd(source, d), cbd(served, match))
        missing += m
        added += a
    return {"missing": missing, "added": added, "pairs": pairs, "described": len(described)}


if __name__ == "__main__":
    print(json.dumps(compare(*sys.argv[2:]) if sys.argv[1] == "compare" else None))
