"""bench/iree_trace.timeline_summary: how a traced call's host span splits into lead-in, kernels, gaps and tail,
on a synthetic CUPTI-style trace (times in microseconds, as torch's chrome traces hold them)."""

import pytest

from helpers import load_bench_script


@pytest.fixture(scope="module")
def iree_trace():
    return load_bench_script("iree_trace")


def kernel(ts, dur, name="iree_cutlass_dgrad_sm90_f16_x"):
    return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur}


def call(ts, dur, name="iree_call"):
    return {"ph": "X", "cat": "user_annotation", "name": name, "ts": ts, "dur": dur}


def test_two_calls_split_into_lead_gaps_and_tail(iree_trace):
    events = [call(0, 100), kernel(20, 30), kernel(55, 30), call(200, 100), kernel(210, 30), kernel(230, 30),
              {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 1, "dur": 4},
              {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 6, "dur": 4}]
    result = iree_trace.timeline_summary(events, calls=2, call_name="iree_call")
    assert result["ours_kernels_per_call"] == 2
    assert result["ours_kernel_ms_median"] == pytest.approx(0.030)
    assert result["call_span_ms_median"] == pytest.approx(0.100)
    assert result["lead_ms_median"] == pytest.approx((0.020 + 0.010) / 2)
    # call 1: a 5 us gap; call 2: the second kernel starts before the first ends (overlap, no gap)
    assert result["gap_ms_per_call"] == pytest.approx(0.005 / 2)
    assert result["overlapping_kernels_per_call"] == pytest.approx(0.5)
    assert result["tail_ms_median"] == pytest.approx((0.015 + 0.040) / 2)
    assert result["cuda_api_per_call"]["cuLaunchKernel"] == {"count": 1.0, "ms": 0.004}


def test_other_gpu_work_is_reported_apart(iree_trace):
    events = [call(0, 50), kernel(5, 10), {"ph": "X", "cat": "gpu_memset", "name": "Memset", "ts": 20, "dur": 5}]
    result = iree_trace.timeline_summary(events, calls=1, call_name="iree_call")
    assert result["ours_gpu_ms_per_call"] == pytest.approx(0.010)
    assert result["other_gpu_ms_per_call"] == pytest.approx(0.005)
    assert result["other_by_name"] == {"gpu_memset: Memset": {"count_per_call": 1.0, "ms_each_median": 0.005}}
    assert result["gpu_busy_ms_per_call"] == pytest.approx(0.015)
