# Sourced by the per-session GPU call scripts (from session 17 on): stop on unset variables and failed pipes, run
# from the repository root, mark each step with the time, and point Python at the checkout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1

# The swapped sm90_gemm candidates (session 31; tiles of channels by pixels) that session 32's H100 run checked
# (random plain GEMMs, memcheck, racecheck): the plans that time them on more layers name these, so that the table
# can vouch for them by kernel code with those logs.
SWAPPED_CANDIDATES=(128x192_co_sw 128x192_co_c2_sw 128x256_co_c2_sw 256x128_co_c2_sw 128x128_pp_c2_sw)

# Numerics of a random-problem plan (check only), then memcheck and racecheck over a sanitizer plan, into $OUT.
#   numerics_and_sanitizers out/randNN out/sanNN
numerics_and_sanitizers() {
  random_numerics "$1"
  sanitizer memcheck 60 memcheck.txt --plan "$2"
  sanitizer racecheck 100 racecheck.txt --plan "$2"
}

# One compute-sanitizer tool over bench/sanitize_kernels.py with ARGS (bundles or plans) within SECONDS, its log
# into $OUT/FILE.
#   sanitizer memcheck|racecheck SECONDS FILE ARGS...
sanitizer() {
  local tool=$1 seconds=$2 file=$3
  shift 3
  T "$tool"
  timeout "$seconds" compute-sanitizer --tool "$tool" python3 bench/sanitize_kernels.py "$@" > "$OUT/$file" 2>&1
  tail -2 "$OUT/$file"
}

# Numerics of a random-problem plan (check only), into $OUT/random.json.
#   random_numerics out/randNN
random_numerics() {
  T random
  timeout 80 python3 -m iree_cutlass.tune measure --plan "$1" --check-only --out $OUT/random.json 2>&1 | tail -3
}

# A tuning call: the card, then a tune plan's candidates beside each layer's shipped kernel and cuDNN (CUDA graphs)
# within SECONDS, then numerics_and_sanitizers.
#   tune_call out/tuneNN SECONDS out/randNN out/sanNN
tune_call() {
  card
  T tune
  tune_measure "$1" "$2" tune.json
  numerics_and_sanitizers "$3" "$4"
  T done
}

# The card and its clocks.
card() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
}

# Whether the card is an H200 (the table's card: only its timings make table entries).
on_h200() {
  [[ "$(nvidia-smi --query-gpu=name --format=csv,noheader)" == *H200* ]]   # no pipe: pipefail and grep -q race
}

# A tune plan's candidates beside each layer's shipped kernel and cuDNN (CUDA graphs) within SECONDS, into $OUT/NAME.
#   tune_measure out/tuneNN SECONDS NAME.json
tune_measure() {
  timeout "$2" python3 -m iree_cutlass.tune measure --plan "$1" --graph --with-cudnn --out "$OUT/$3" 2>&1 | tail -46
}

# The same plan measured twice, into $OUT/NAME.json and $OUT/NAME2.json: `iree-cutlass-tune table --agree` takes an
# entry only where both runs agree.
#   tune_twice out/tuneNN SECONDS NAME
tune_twice() {
  T "$3"
  tune_measure "$1" "$2" "$3.json"
  T "${3}2"
  tune_measure "$1" "$2" "${3}2.json"
}

# A variants call: the card, then a kernel_variants.py plan (shipped kernels beside text-edit variants, out/PLAN.tgz
# unpacked) measured twice, into $OUT/NAME.json and $OUT/NAME2.json, each run within SECONDS.
#   variants_call out/varNN SECONDS NAME
variants_call() {
  local run
  card
  unpack_archive "${1#out/}"
  for run in "$3" "${3}2"; do
    T "$run"
    timeout "$2" python3 bench/kernel_variants.py measure --plan "$1" --out "$OUT/$run.json" 2>&1 | tail -30
  done
  T done
}

# A carried archive (a whole-check bundle or a tune's plans) unpacked into out/: from out/NAME.txz where it was
# carried (`tar | xz -9`: a tenth to a quarter of the gzip tarball, whose 32 KB window misses the fatbins that
# vmfbs and plans repeat; Python's lzma, so no xz binary is needed), else from out/NAME.tgz.
#   unpack_archive NAME
unpack_archive() {
  if [[ -f "out/$1.txz" ]]; then
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1], 'r:xz').extractall('out')" "out/$1.txz"
  else
    tar xzf "out/$1.tgz" -C out
  fi
}

# Here (no GPU): a kernel_variants.py plan from an empty out/NAME (the build reuses fatbins it finds, and the
# variants' text may have changed), packed as out/NAME.tgz.
#   variants_build NAME "VARIANT ..." TAG=ENTRY ...
variants_build() {
  local name=$1 variants=$2
  shift 2
  rm -rf "out/$name"
  # shellcheck disable=SC2086   # the variants are one word each
  python3 bench/kernel_variants.py build --out "out/$name" --variants $variants --tags "$@" || return
  tar czf "out/$name.tgz" -C out "$name"
  ls -la "out/$name.tgz"
  echo "[variants_build] $name done at $(git rev-parse --short HEAD)"
}

# Nsight Compute's full set with SASS samples on one layer of a kernel_variants.py plan, one launch of each variant
# in the order given, turned into text pages (ncu_pages; the SASS tables gzipped) and packed as $OUT/NAME.tgz.
#   ncu_variants out/varNN TAG NAME VARIANT...
ncu_variants() {
  local plan=$1 tag=$2 name=$3 dir=/tmp/$3 variant
  shift 3
  mkdir -p "$dir"
  T ncu
  for variant in "$@"; do
    timeout 60 ncu --set full --import-source yes --clock-control none -c 1 -k regex:iree_cutlass -o "$dir/$variant" \
      python3 bench/profile_kernels.py --variants "$plan" --launches 1 --cases "$tag:$variant" 2>&1 | tail -1
  done
  ncu_pages "$dir"
  gzip -f "$dir"/*.sass.csv
  tar czf "$OUT/$name.tgz" -C /tmp "$name"
  T done
}

# Nsight Compute reports in DIR turned into text: each one's details page and its per-instruction SASS table (for
# bench/sass_profile.py), the report itself removed (they are large).
#   ncu_pages DIR
ncu_pages() {
  local rep base
  shopt -s nullglob
  for rep in "$1"/*.ncu-rep; do
    base=${rep%.ncu-rep}
    ncu -i "$rep" --page details --print-details all > "$base.details.txt" 2>&1 ||
      ncu -i "$rep" --page details > "$base.details.txt" 2>&1
    ncu -i "$rep" --page source --csv --print-source sass > "$base.sass.csv" 2>&1 || true
    rm -f "$rep"
  done
}

# Here (no GPU): the sm90_gemm plans of a tuning call: CANDIDATES beside every batch-256 1x1 layer's shipped kernel
# (TUNE), on the 16 random plain GEMMs among 200 random problems, seed 25 (RAND), and on two of them (SAN).
#   build_gemm_plans out/tuneNN out/randNN out/sanNN CANDIDATE...
build_gemm_plans() {
  local tune=$1 rand=$2 san=$3
  shift 3
  python3 -m iree_cutlass.tune build --out "$tune" --families sm90 sm90_gemm --batches 256 --dtypes f16 bf16 \
    --only _r1_s1_p --candidates "$@" || return
  python3 -m iree_cutlass.tune build --out "$rand" --families sm90_gemm --random 200 --seed 25 \
    --channel-multiple 8 --only _r1_s1_ --candidates "$@" || return
  python3 -m iree_cutlass.tune build --out "$san" --families sm90_gemm --random 200 --seed 25 \
    --channel-multiple 8 --only n3_h21_w11_c136_k64_r1_s1_p21_q11_pad0x0_str1x1_f16 \
    n3_h2_w30_c160_k80_r1_s1_p2_q30_pad0x0_str1x1_bf16 --candidates "$@"
}

# Here (no GPU): the checks of a twin tune (a kernel option's twins beside the table's kernels): every kernel of
# PLANs (in DIR) whose entry point matches the Python regular expression PATTERN (e.g. `_bw$`), on the random
# problems among the first TWIN_RANDOM (default 200, seed 25) that it computes (DIR/RAND, numerics only) and on the
# ResNet-50 layers at batch 2 (DIR/SAN, for memcheck and racecheck; only those whose keys contain a word of
# TWIN_SAN_ONLY where it is set).
#   [TWIN_RANDOM=N] [TWIN_SAN_ONLY="KEY_PART ..."] twin_checks DIR CARD PATTERN RAND SAN PLAN...
twin_checks() {
  local dir=$1 card=$2 pattern=$3 rand=$4 san=$5 names
  shift 5
  mapfile -t names < <(python3 - "$dir" "$pattern" "$@" <<'PY'
import json, pathlib, re, sys
directory, pattern, plans = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
names = {c["entry"] for plan in plans
         for p in json.loads((directory / plan / "plan.json").read_text())["problems"]
         for c in p["candidates"] if re.search(pattern, c["entry"])}
print("\n".join(sorted(names)))
PY
)
  echo "[twin_checks] ${#names[@]} kernels matching $pattern"
  local plans=("${@/#/$dir/}")   # the twins' configs come from the plans, as off-grid twins are no sweep candidates
  local san_only=()
  [[ -n "${TWIN_SAN_ONLY:-}" ]] && read -ra san_only <<< "--only $TWIN_SAN_ONLY"
  python3 -m iree_cutlass.tune build --out "$dir/$rand" --card "$card" --families sm90 --random "${TWIN_RANDOM:-200}" \
    --seed 25 --channel-multiple 8 --candidates "${names[@]}" --configs-from "${plans[@]/%//plan.json}" --jobs 2 ||
    return
  python3 -m iree_cutlass.tune build --out "$dir/$san" --card "$card" --families sm90 --batches 2 \
    --dtypes f16 bf16 "${san_only[@]}" --candidates "${names[@]}" --configs-from "${plans[@]/%//plan.json}" --jobs 2
}

# A twin tune's call: the card, each RUN (NAME:PLAN:SECONDS:SECONDS2; PLAN in DIR) timed beside cuDNN into
# $OUT/NAME.json, the twins' numerics and sanitizers (DIR/RAND, DIR/SAN), then, while the script has run under
# LIMIT seconds, each plan's second run into $OUT/NAME2.json (`table --agree` takes an entry only where both runs
# agree). A call that ends early keeps what it wrote.
#   twin_call DIR RAND SAN LIMIT RUN...
twin_call() {
  local dir=$1 rand=$2 san=$3 limit=$4 run name plan seconds seconds2
  shift 4
  card
  unpack_archive "${dir#out/}"
  for run in "$@"; do
    IFS=: read -r name plan seconds seconds2 <<< "$run"
    T "$name"
    tune_measure "$dir/$plan" "$seconds" "$name.json"
  done
  numerics_and_sanitizers "$dir/$rand" "$dir/$san"
  if (( SECONDS < limit )); then
    for run in "$@"; do
      IFS=: read -r name plan seconds seconds2 <<< "$run"
      T "${name}2"
      tune_measure "$dir/$plan" "$seconds2" "${name}2.json"
    done
  fi
  T done
}

# Batch-256 whole checks (f16, bf16) of bundles one after another, each into $OUT/NAME/gpu_check.json (written after
# every case, so a call cut short keeps what it measured).
#   checks_n256 NAME:out/BUNDLE [NAME:out/BUNDLE ...]
checks_n256() {
  local bundle
  for bundle in "$@"; do
    mkdir -p "$OUT/${bundle%%:*}"
    T "check ${bundle#*:}"
    OUT="$OUT/${bundle%%:*}" timeout 300 bash bench/gpu_check.sh --bundle "${bundle#*:}" --bench \
      --bench-dtypes f16 bf16 --only n256 2>&1 | tail -4
  done
}

# Here (no GPU): session 33's candidate table (the H200 table with the entries table_after_tunes.sh's rule picks
# from the H100 tunes of sessions 26, 32 and 33) written over plugin/tuning/h200.json; the caller restores it.
#   candidate_table
candidate_table() {
  local dir
  dir=$(mktemp -d)
  mkdir -p "$dir/a" "$dir/sw" "$dir/sw2"
  cp bench/results/h100_2026-12-06_session26_pingpong_transposed_128_tune.json "$dir/a/tune.json"
  cp bench/results/h100_2026-12-07_session32_swapped_tune.json "$dir/sw/tune.json"
  cp bench/results/h100_2026-12-07_session33_swapped_sw2_tune.json "$dir/sw2/tune.json"
  bash bench/plans/session31/table_after_tunes.sh "$dir" 2>&1 | grep -v '^\[tune\] n\|^  '
}

# The keys of the first COUNT random problems of seed 25 (channels of 8; f16 and bf16) with padding and a filter
# of several taps along a padded axis: where clipped taps can skip anything.
#   random_padded COUNT
random_padded() {
  python3 - "$1" <<'PY'
import sys
from iree_cutlass.workloads import dgrad_problem, random_layers
keys = [p.key() for p in map(dgrad_problem, random_layers(200, 25, 8))
        if p.dtype in ("f16", "bf16") and ((p.r > 1 and p.pad_h) or (p.s > 1 and p.pad_w))]
print("\n".join(keys[:int(sys.argv[1])]))
PY
}
