#!/usr/bin/env bash
# Here: main's bundle (out/gpu) and the candidate bundle (out/gpu27s) in one archive, out/gpu29.tgz, with each file
# the two share stored once (a hard link in the tar): the two archives apart, with the runtime wheel, p26a.tgz and
# the tracked tree, are over run's 64 MiB carry. Build both first (session 28's call1.sh says how).
set -euo pipefail
cd "$(dirname "$0")/../../../out"
rm -rf pack29 && mkdir pack29
cp -al gpu pack29/gpu && cp -a gpu27s pack29/gpu27s
python3 - <<'PY'
import filecmp, os
shared = 0
for folder, _, files in os.walk("pack29/gpu27s"):
    for name in files:
        mine = os.path.join(folder, name)
        main = os.path.join("pack29/gpu", os.path.relpath(mine, "pack29/gpu27s"))
        if os.path.exists(main) and filecmp.cmp(mine, main, shallow=False):
            os.unlink(mine); os.link(main, mine); shared += 1
print(f"[pack] {shared} files shared by the two bundles")
PY
tar czf gpu29.tgz.tmp -C pack29 gpu gpu27s && mv gpu29.tgz.tmp gpu29.tgz && rm -rf pack29
ls -la gpu29.tgz
