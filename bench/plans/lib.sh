# Sourced by the per-session GPU call scripts (from session 17 on): stop on unset variables and failed pipes, run
# from the repository root, mark each step with the time, and point Python at the checkout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
