"""mlcroissant's reading of a Croissant file, printed as one JSON object (run with TEST_PYTHON).

  croissant_check.py <file.jsonld> [<record set id> ...]

Loading the file validates it (mlcroissant raises on any error); then each record set's fields and data
types, the file objects, the warnings, and the rows of each record set named on the command line (which
mlcroissant downloads from contentUrl and checks against its sha256).
"""
import json
import sys

import mlcroissant as mlc


def main(path, *record_sets):
    try:
        dataset = mlc.Dataset(jsonld=path)
    except mlc.ValidationError as err:
        print(json.dumps({"valid": False, "errors": str(err)}))
        return
    metadata = dataset.metadata
    out = {
        "valid": True,
        "name": metadata.name,
        "conformsTo": getattr(metadata.ctx.conforms_to, "value", str(metadata.ctx.conforms_to)),
        "warnings": sorted(metadata.ctx.issues.warnings),
        "files": [{"id": f.uuid, "contentUrl": f.content_url, "sha256": f.sha256, "encodingFormat": f.encoding_formats} for f in metadata.file_objects],
        "recordSets": [
            {
                "id": rs.uuid,
                "fields": [{"name": f.name, "dataTypes": [str(t) for t in f.data_types], "column": f.source.extract.column} for f in rs.fields],
            }
            for rs in metadata.record_sets
        ],
        "records": {},
    }
    for record_set in record_sets:
        rows = []
        for record in dataset.records(record_set=record_set):
            rows.append({k.split("/")[-1]: (v.decode() if isinstance(v, bytes) else v) for k, v in record.items()})
        out["records"][record_set] = rows
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(*sys.argv[1:])
