#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~2 min: build_var.sh's A/B (the shipped ping-pong kernels beside
# `partner_skip` and `partner_skip_once`, CUDA graphs, two passes a run, every variant's dx compared with the
# shipped kernel's), run twice ($OUT/var.json, $OUT/var2.json).
# carry: out/var38.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/var38 200 var
