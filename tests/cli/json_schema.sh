#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/json_schema.sh: every command's --json output, on the bundled
# models and datasets, is valid against its JSON Schema (docs/schema/),
# carries the version common/cp.h names, and gives every counter vector
# as many entries as its "counters".  Every command whose --help offers
# --json must be run here.
CP=${CP:-bin/counterpoint}
python3 -c 'import jsonschema' 2>/dev/null || { echo "python3-jsonschema not installed"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "json_schema.sh: $*"; exit 1; }

M=models/haswell/mmu.udd
ALL=datasets/sim-sweep-all.csv
M0=datasets/sim-sweep-m0.csv
n=0
# run NAME SCHEMA ARGS...: the command's output into $tmp/NAME.SCHEMA.json
run() {
	name=$1 schema=$2; shift 2
	$CP "$@" > "$tmp/$name.$schema.json" 2> "$tmp/err"
	[ $? -le 1 ] || { cat "$tmp/err"; fail "counterpoint $*: exit status"; }
	n=$((n + 1))
}
run paths paths paths $M --json
run paths-with paths paths $M --with merge,pde_early --json
run paths-all paths paths models/examples/walk_pde_early.udd --all --json
run cone cone cone models/examples/walk_pde_early.udd --json
run cone-with cone cone $M --with merge --json
run check check check $M $ALL --with merge,pde_early --json
run check-ellipsoid check check tests/data/flows/walk_merge.udd tests/data/flows/merge.csv --region ellipsoid --json
run check-counters check check $M $M0 --counters load.causes_walk,load.walk_done,load.retired --json
run region region region $ALL --json
run region-model region region datasets/linux/faults.csv --model models/linux/faults.udd --json
run flows flows flows $M $ALL --with merge --json
run explore explore explore $M $M0 --candidates merge,abort,bypass --json
run explore-refuted explore explore $M $ALL --candidates merge,abort,bypass --json
run suggest suggest suggest tests/data/flows/walk_merge.udd tests/data/flows/merge.csv --json
run events events events --json
run events-all events events --all --json 'hsw::DTLB*'
for cpu in haswell skylake zen4; do
	run sim-$cpu sim-events sim --list-events --cpu $cpu --json
done

# the commands that offer --json, each run above
for c in $($CP --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	$CP "$c" --help 2>/dev/null | grep -q -- '--json' || continue
	case $c in sim) s=sim-events ;; *) s=$c ;; esac
	ls "$tmp"/*."$s".json >/dev/null 2>&1 || fail "'$c --json' is not validated here"
done

version=$(sed -n 's/^#define CP_JSON_SCHEMA \([0-9]*\).*/\1/p' common/cp.h)
python3 - "$tmp" docs/schema "$version" <<'PY' || fail "validation"
import glob, json, os, sys, warnings
import jsonschema

tmp, sdir, version = sys.argv[1], sys.argv[2], int(sys.argv[3])
schemas = {}
for p in glob.glob(os.path.join(sdir, "*.json")):
    with open(p) as f:
        schemas[os.path.basename(p)] = json.load(f)
assert schemas["common.json"]["$defs"]["schema"]["const"] == version, \
    "docs/schema/common.json's version is not CP_JSON_SCHEMA"
base = "file://" + os.path.abspath(sdir) + "/"

def validator(name):
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schemas[name])
    try:                         # jsonschema >= 4.18
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            (base + n, Resource.from_contents(s)) for n, s in schemas.items())
        return cls({"$ref": base + name}, registry=reg)
    except ImportError:          # Debian's 4.10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = jsonschema.RefResolver(base + name, schemas[name],
                                         store={base + n: s for n, s in schemas.items()})
        return cls(schemas[name], resolver=res)

def vectors(x, k, where):
    if isinstance(x, dict):
        for key, v in x.items():
            if key == "vector":
                assert len(v) == k, f"{where}: a vector of {len(v)}, {k} counters"
            else:
                vectors(v, k, where)
    elif isinstance(x, list):
        for v in x:
            vectors(v, k, where)

bad = 0
for out in sorted(glob.glob(os.path.join(tmp, "*.json"))):
    name = os.path.basename(out).split(".", 1)[1]
    with open(out) as f:
        doc = json.load(f)
    errors = list(validator(name).iter_errors(doc))
    for e in errors[:3]:
        print(f"{os.path.basename(out)}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    bad += bool(errors)
    if "counters" in doc and isinstance(doc["counters"], list):
        vectors({k: v for k, v in doc.items() if k != "counters"}, len(doc["counters"]), out)
sys.exit(1 if bad else 0)
PY
echo "$n outputs valid"
