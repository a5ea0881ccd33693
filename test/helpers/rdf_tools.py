"""RDF checks the feed tests run with TEST_PYTHON (rdflib, pySHACL), each printing one JSON object.

  parse <format> <file>       rdflib parses the file: triple count, datasets and Hydra links found
  shacl <data file> <shapes>  pySHACL validation of a Turtle file: violations, warnings, the report text
"""
import json
import sys

import rdflib
from rdflib.namespace import RDF, SH

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
HYDRA = rdflib.Namespace("http://www.w3.org/ns/hydra/core#")
FORMATS = {"ttl": "turtle", "jsonld": "json-ld", "rdf": "xml", "nt": "nt"}


def parse(fmt, path):
    g = rdflib.Graph()
    g.parse(path, format=FORMATS[fmt])
    datasets = sorted(str(d) for d in g.subjects(RDF.type, DCAT.Dataset))
    views = list(g.subjects(RDF.type, HYDRA.PartialCollectionView))
    link = lambda p: [str(o) for v in views for o in g.objects(v, p)]
    return {
        "triples": len(g),
        "datasets": datasets,
        "identifiers": sorted(str(o) for d in g.subjects(RDF.type, DCAT.Dataset) for o in g.objects(d, DCT.identifier)),
        "titles": sorted(str(o) for d in g.subjects(RDF.type, DCAT.Dataset) for o in g.objects(d, DCT.title)),
        "distributions": sorted(str(o) for o in g.objects(None, DCAT.distribution)),
        "totalItems": [int(o) for o in g.objects(None, HYDRA.totalItems)],
        "first": link(HYDRA.first),
        "next": link(HYDRA.next),
        "previous": link(HYDRA.previous),
        "last": link(HYDRA.last),
        "canonical": sorted(g.serialize(format="nt").splitlines()) if len(g) < 5000 else None,
    }


def shacl(data_path, shapes_path):
    from pyshacl import validate

    data = rdflib.Graph().parse(data_path, format="turtle")
    shapes = rdflib.Graph().parse(shapes_path, format="turtle")
    conforms, results, text = validate(data, shacl_graph=shapes, inference="none", abort_on_first=False, allow_warnings=True)
    severities = [str(s) for s in results.objects(None, SH.resultSeverity)]
    return {
        "conforms": bool(conforms),
        "violations": severities.count(str(SH.Violation)),
        "warnings": severities.count(str(SH.Warning)),
        "infos": severities.count(str(SH.Info)),
        "report": text,
    }


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    print(json.dumps({"parse": parse, "shacl": shacl}[command](*args)))
