# Sourced by the per-session GPU call scripts (from session 17 on): stop on unset variables and failed pipes, run
# from the repository root, mark each step with the time, and point Python at the checkout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1

# Numerics of a random-problem plan (check only), then memcheck and racecheck over a sanitizer plan, into $OUT.
#   numerics_and_sanitizers out/randNN out/sanNN
numerics_and_sanitizers() {
  T random
  timeout 80 python3 -m iree_cutlass.tune measure --plan "$1" --check-only --out $OUT/random.json 2>&1 | tail -3
  T memcheck
  timeout 60 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --plan "$2" > $OUT/memcheck.txt 2>&1
  tail -2 $OUT/memcheck.txt
  T racecheck
  timeout 100 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --plan "$2" > $OUT/racecheck.txt 2>&1
  tail -2 $OUT/racecheck.txt
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

# A tune plan's candidates beside each layer's shipped kernel and cuDNN (CUDA graphs) within SECONDS, into $OUT/NAME.
#   tune_measure out/tuneNN SECONDS NAME.json
tune_measure() {
  timeout "$2" python3 -m iree_cutlass.tune measure --plan "$1" --graph --with-cudnn --out "$OUT/$3" 2>&1 | tail -46
}
