"""Validates a DCAT-US data.json with the official v1.1 JSON Schema (the one data.gov validates with).

Usage: dcat_us_check.py CATALOG_FILE SCHEMA_DIR
Prints one JSON line: {"errors": N, "catalog": [messages], "datasets": {index: [messages]}}, each message
"path: message"; the sibling schemas (dataset.json, distribution.json, ...) resolve from SCHEMA_DIR.
"""
import json
import pathlib
import sys

from jsonschema import Draft4Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4


def main(catalog_file: str, schema_dir: str) -> None:
    base = "https://project-open-data.cio.gov/v1.1/schema/"
    resources = []
    for path in pathlib.Path(schema_dir).glob("*.json"):
        schema = json.loads(path.read_text())
        resources.append((base + path.name, Resource.from_contents(schema, default_specification=DRAFT4)))
    registry = Registry().with_resources(resources)
    catalog_schema = json.loads((pathlib.Path(schema_dir) / "catalog.json").read_text())
    validator = Draft4Validator(catalog_schema, registry=registry)
    catalog = json.loads(pathlib.Path(catalog_file).read_text())
    result = {"errors": 0, "catalog": [], "datasets": {}}
    for error in validator.iter_errors(catalog):
        path = list(error.absolute_path)
        message = "/".join(str(p) for p in path) + ": " + error.message[:300]
        result["errors"] += 1
        if len(path) >= 2 and path[0] == "dataset":
            result["datasets"].setdefault(str(path[1]), []).append(message)
        else:
            result["catalog"].append(message)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
