#!/usr/bin/env python3
"""Checks lperf's WindowsPerf-personality JSON (build/wperf ... --json) against the shapes of
WindowsPerf's public JSON schemas (arm-developer-tools/windowsperf, wperf-scripts/tests/schemas:
wperf.{stat,sample,timeline,list,test,version,man,detect}.schema). The schemas below are written
from those files: the same required keys, the same types and the same closed objects; they are
not copies. Usage: wperf_json.py KIND FILE."""
import json
import sys

import jsonschema

S, I, N, B = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}


def obj(props, required=None, closed=True, **extra):
    d = {"type": "object", "properties": props, "required": list(props) if required is None else required}
    if closed:
        d["additionalProperties"] = False
    d.update(extra)
    return d


def arr(items, **extra):
    return dict({"type": "array", "items": items}, **extra)


def rows(key, cols, required=None, required_top=True):
    return obj({key: arr(obj({c: S for c in cols}, required), uniqueItems=True)},
               [key] if required_top else [])


COUNTER = obj({"counter_value": I, "event_idx": S, "event_name": S, "event_note": S,
               "multiplexed": S, "scaled_value": I},
              ["counter_value", "event_idx", "event_name", "event_note"])
STAT = obj({
    "core": obj({
        "Multiplexing": B, "Kernel_mode": B,
        "cores": arr(obj({"core_number": I, "Performance_counter": arr(COUNTER)})),
        "overall": obj({"Systemwide_Overall_Performance_Counters": arr(COUNTER)}, [], closed=False),
        "ts_metric": obj({"Telemetry_Solution_Metrics": arr(obj(
            {"core": S, "product_name": S, "metric_name": S, "value": S, "unit": I}, [], closed=False))},
            [], closed=False),
    }, ["Multiplexing", "Kernel_mode", "cores", "overall"], minProperties=4),
    "dsu": obj({"l3metric": obj({"L3_Cache_Metrics": arr(obj(
                   {"cluster": S, "miss_rate": S, "read_bandwidth": S, "cores": S}, []))}, []),
                "overall": obj({"Systemwide_Overall_Performance_Counters": arr(COUNTER)}, [])},
               ["l3metric", "overall"],
               patternProperties={"^[0-9]+$": obj({"Performance_counter": arr(COUNTER)}, [],
                                                  closed=False)}),
    "dmc": obj({"pmu": obj({"PMU_Performance_Counters": arr(obj(
                   {"counter_value": I, "event_idx": S, "event_name": S, "event_note": S,
                    "pmu_id": S}, []))}, []),
                "ddr": obj({"DDR_Metrics": arr(obj({"channel": S, "rw_bandwidth": S}, [],
                                                   closed=False))}, [])},
               ["pmu", "ddr"]),
    "Time_elapsed": N,
}, ["core", "dsu", "dmc"], closed=False)

SAMPLE_EVENT = {
    "type": "object",
    "required": ["type", "samples", "interval", "printed_sample_num", "annotate"],
    "minProperties": 4, "maxProperties": 6,
    "properties": {
        "type": S, "interval": I, "printed_sample_num": I,
        "samples": arr(obj({"count": I, "overhead": N, "symbol": S})),
        "annotate": arr(obj({"function_name": S, "source_code": arr(obj(
            {"filename": S, "line_number": I, "hits": I, "instruction_address": S,
             "disassembled_line": obj({"disassemble": arr(obj({"address": S, "instruction": S}))})},
            # wperf.sample.schema lists all five as required yet allows 3 to 5 properties:
            # wperf itself writes the last two only with --disassemble, and so does lperf.
            ["filename", "line_number", "hits"], minProperties=3, maxProperties=5))})),
        "pcs": arr(obj({"address": I, "count": I, "in_symbol": S}, closed=False)),
    },
}
SAMPLE = obj({"sampling": {
    "type": "object",
    "required": ["sample_display_row", "samples_generated", "samples_dropped", "pe_file",
                 "pdb_file", "events"],
    "minProperties": 5,
    "properties": {"events": arr(SAMPLE_EVENT), "base_address": I, "runtime_delta": I,
                   "sample_display_row": I, "samples_generated": I, "pe_file": S, "pdb_file": S,
                   "samples_dropped": I},
}}, closed=False)

SCHEMAS = {
    "stat": STAT,
    "timeline": obj({"timeline": arr(STAT), "count_duration": N, "count_interval": N,
                     "count_timeline": I}),
    "sample": SAMPLE,
    "record": SAMPLE,
    "list": obj({"Predefined_Events": arr(obj({"Alias_Name": S, "Event_Type": S, "Raw_Index": S}),
                                          uniqueItems=True),
                 "Predefined_Metrics": arr(obj({"Events": S, "Metric": S}), uniqueItems=True),
                 "Predefined_Groups_of_Metrics": arr(obj({"Group": S, "Metrics": S}),
                                                     uniqueItems=True)},
                ["Predefined_Events", "Predefined_Metrics"]),
    "test": rows("Test_Results", ["Result", "Test_Name"]),
    "version": obj({"Version": arr(obj({"Component": S, "Version": S, "GitVer": S,
                                        "FeatureString": S}),
                                   minItems=2, maxItems=2, uniqueItems=True)}),
    "man": rows("Manual_Results", ["Field_Type", "Result"]),
    "detect": rows("Devices", ["Device_Instance_ID", "Hardware_IDs"]),
}

kind, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    try:
        doc = json.load(f)
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: not JSON: {e}")
try:
    jsonschema.validate(doc, SCHEMAS[kind])
except jsonschema.ValidationError as e:
    sys.exit(f"{path}: not WindowsPerf's {kind} shape: {e.message} at {list(e.absolute_path)}")
