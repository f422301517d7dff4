#!/usr/bin/env python3
"""Validates a JSON document against one of the schemas in docs/schemas (JSON Schema draft 7)."""
import json
import sys

# Call trees nest deeply; the validator recurses several levels per tree level.
sys.setrecursionlimit(100000)

import jsonschema

schema_path, doc_path = sys.argv[1], sys.argv[2]
with open(schema_path) as f:
    schema = json.load(f)
with open(doc_path) as f:
    try:
        doc = json.load(f)
    except json.JSONDecodeError as e:
        sys.exit(f"{doc_path}: not JSON: {e}")
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    sys.exit(f"{doc_path}: does not match {schema_path}: {e.message} at {list(e.absolute_path)}")
